/*!40101 SET @saved_cs_client = @@character_set_client */;
SET NAMES utf8mb4;

CREATE TABLE customer (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(191) NOT NULL,
  display_name VARCHAR(100) NOT NULL DEFAULT 'O\'Reilly; Tim' COMMENT 'the `name`; shown',
  created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE UNIQUE INDEX customer_email_uq ON customer (email);

# priority 0..9, looked up by the scheduler
ALTER TABLE jobs
  ADD COLUMN priority TINYINT NOT NULL DEFAULT 0 AFTER id,
  ADD INDEX jobs_priority (priority, touched_at),
  ADD CONSTRAINT jobs_priority_range CHECK (priority BETWEEN 0 AND 9),
  LOCK=SHARED;
ALTER TABLE jobs RENAME COLUMN note TO remark;

CREATE VIEW open_jobs AS SELECT id, priority FROM jobs WHERE status = 'open';
RENAME TABLE customer TO client;
