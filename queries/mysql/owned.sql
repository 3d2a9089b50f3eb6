-- The owned-schema lifecycle every built-in workload shares (workloads/owned):
-- a database of its own per variant, an owner marker in it, and a lock named
-- after it that the run holds while the database exists. {{schema}} is the
-- database. owned_list_schemas lists every writeamp_ database (writeamp_ledger
-- too); the package keeps those of one workload's prefix.

-- name: owned_list_schemas
SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'writeamp\_%' ORDER BY 1

-- name: owned_create_schema
CREATE DATABASE {{schema}} CHARACTER SET utf8mb4

-- name: owned_drop_schema
DROP DATABASE {{schema}}

-- name: owned_marker_create
CREATE TABLE {{schema}}.writeamp_owner (run_id varchar(64) NOT NULL, pid int NOT NULL, host varchar(255) NOT NULL, started varchar(64) NOT NULL, lock_kind varchar(16) NOT NULL, kept int NOT NULL) ENGINE=InnoDB

-- name: owned_marker_insert
INSERT INTO {{schema}}.writeamp_owner (run_id, pid, host, started, lock_kind, kept) VALUES (?, ?, ?, ?, ?, ?)

-- name: owned_marker_read
SELECT run_id, pid, host, started, lock_kind, kept FROM {{schema}}.writeamp_owner

-- name: owned_marker_read_legacy
-- A marker written by a writeamp before the schema lock (no lock_kind, no kept).
SELECT run_id, pid, host FROM {{schema}}.writeamp_owner

-- name: owned_schema_lock
-- The schema's lock, held by the run that made it for as long as it runs: a
-- named lock of the session, released when the session ends, however the
-- process ends. GET_LOCK returns 1 taken, 0 held by another, NULL on error.
-- https://dev.mysql.com/doc/refman/8.0/en/locking-functions.html
-- https://mariadb.com/kb/en/get_lock/
SELECT GET_LOCK(?, 0)

-- name: owned_schema_unlock
SELECT RELEASE_LOCK(?)
