-- The owned-schema lifecycle every built-in workload shares (workloads/owned):
-- a schema of its own per variant, an owner marker in it, and a lock named
-- after it that the run holds while the schema exists. {{schema}} is the
-- schema. owned_list_schemas lists every writeamp_ schema; the package keeps
-- those of one workload's prefix.

-- name: owned_list_schemas
SELECT nspname FROM pg_namespace WHERE nspname LIKE 'writeamp\_%' ORDER BY 1

-- name: owned_create_schema
CREATE SCHEMA {{schema}}

-- name: owned_drop_schema
DROP SCHEMA {{schema}} CASCADE

-- name: owned_marker_create
CREATE TABLE {{schema}}.writeamp_owner (run_id varchar(64) NOT NULL, pid int NOT NULL, host varchar(255) NOT NULL, started varchar(64) NOT NULL, lock_kind varchar(16) NOT NULL, kept int NOT NULL)

-- name: owned_marker_insert
INSERT INTO {{schema}}.writeamp_owner (run_id, pid, host, started, lock_kind, kept) VALUES ($1, $2, $3, $4, $5, $6)

-- name: owned_marker_read
SELECT run_id, pid, host, started, lock_kind, kept FROM {{schema}}.writeamp_owner

-- name: owned_marker_read_legacy
-- A marker written by a writeamp before the schema lock (no lock_kind, no kept).
SELECT run_id, pid, host FROM {{schema}}.writeamp_owner

-- name: owned_schema_lock
-- The schema's lock, held by the run that made it for as long as it runs (a
-- session-level advisory lock: released when the session ends, however the
-- process ends, on any host or PID namespace). 1 taken, 0 held by another.
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS
SELECT CASE WHEN pg_try_advisory_lock(hashtextextended($1, 0)) THEN 1 ELSE 0 END

-- name: owned_schema_unlock
SELECT pg_advisory_unlock(hashtextextended($1, 0))
