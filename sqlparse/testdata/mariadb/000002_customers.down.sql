RENAME TABLE client TO customer;
DROP VIEW open_jobs;
ALTER TABLE jobs RENAME COLUMN remark TO note;
ALTER TABLE jobs DROP CONSTRAINT jobs_priority_range, DROP INDEX jobs_priority, DROP COLUMN priority;
DROP TABLE customer;
