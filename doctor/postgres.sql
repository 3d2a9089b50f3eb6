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

-- name: copy_requirements
-- Whether check -- COMMAND may copy the database ($1) on its own server, as
-- check/clone.go asks before it does: CREATEDB (or superuser), and the right
-- to copy it (superuser, its owner, or any CREATEDB role for a template).
SELECT r.rolsuper, r.rolcreatedb, d.datistemplate, pg_has_role(d.datdba, 'USAGE')
FROM pg_database d, pg_roles r
WHERE d.datname = $1 AND r.rolname = current_user
