-- +goose Up
ALTER TABLE jobs ALTER COLUMN priority TYPE integer;
UPDATE jobs SET priority = 5 WHERE status = 'urgent';
CREATE INDEX ON jobs (touched_at);
CREATE TABLE IF NOT EXISTS audit (id bigint);
DROP INDEX jobs_lower_note;
SET lock_timeout = '5s';

-- +goose Down
SELECT 'down migration not supported';
