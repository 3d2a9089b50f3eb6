-- What `writeamp doctor` asks MySQL/MariaDB beyond the probe.

-- name: trial
-- What run does first: its own database, an InnoDB table, a row written in a
-- transaction. DDL is not transactional here, so doctor drops the database
-- again (trial_drop) whatever happened.
CREATE DATABASE {{schema}} CHARACTER SET utf8mb4;
CREATE TABLE {{schema}}.t (id int) ENGINE=InnoDB

-- name: trial_write
INSERT INTO {{schema}}.t VALUES (1)

-- name: trial_drop
DROP DATABASE IF EXISTS {{schema}}
