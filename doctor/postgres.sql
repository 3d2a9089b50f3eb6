-- What `writeamp doctor` asks PostgreSQL beyond the probe.

-- name: read_only_setting
-- Where default_transaction_read_only comes from (pg_settings.source: user,
-- database, database user, configuration file ...), to name the statement
-- that turns it off.
SELECT setting, source FROM pg_settings WHERE name = 'default_transaction_read_only'

-- name: trial
-- What run does first, in one transaction that doctor rolls back: nothing
-- stays (DDL is transactional in PostgreSQL).
CREATE SCHEMA {{schema}};
CREATE TABLE {{schema}}.t (id int);
INSERT INTO {{schema}}.t VALUES (1)
