DELIMITER $$
CREATE PROCEDURE bump_priority(IN p_id BIGINT)
BEGIN
  UPDATE jobs SET priority = priority + 1 WHERE id = p_id;
END$$
DELIMITER ;
INSERT INTO jobs (id, status) VALUES (1, 'ready');
ALTER TABLE jobs MODIFY status VARCHAR(32) NOT NULL;
ALTER TABLE jobs ADD INDEX (touched_at);
CREATE TABLE IF NOT EXISTS audit (id BIGINT);
