-- The owned-schema lifecycle every built-in workload shares (workloads/owned):
-- a schema of its own per variant, an owner marker in it, and a lock named
-- after it that the run holds while the schema exists. {{schema}} is the
-- schema; parameters are @p1..@pN. owned_list_schemas lists every writeamp_
-- schema; the package keeps those of one workload's prefix.

-- name: owned_list_schemas
SELECT name FROM sys.schemas WHERE name LIKE N'writeamp[_]%' ORDER BY name

-- name: owned_create_schema
CREATE SCHEMA {{schema}}

-- name: owned_drop_schema
-- SQL Server has no DROP SCHEMA ... CASCADE: drop the schema's tables first,
-- in one batch (only tables: the workload creates nothing else).
DECLARE @drop nvarchar(max) = N'';
SELECT @drop = @drop + N'DROP TABLE ' + QUOTENAME(s.name) + N'.' + QUOTENAME(t.name) + N'; '
FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id
WHERE s.name = N'{{schema}}';
EXEC sys.sp_executesql @drop;
DROP SCHEMA {{schema}};

-- name: owned_marker_create
CREATE TABLE {{schema}}.writeamp_owner (run_id varchar(64) NOT NULL, pid int NOT NULL, host varchar(255) NOT NULL, started varchar(64) NOT NULL, lock_kind varchar(16) NOT NULL, kept int NOT NULL)

-- name: owned_marker_insert
INSERT INTO {{schema}}.writeamp_owner (run_id, pid, host, started, lock_kind, kept) VALUES (@p1, @p2, @p3, @p4, @p5, @p6)

-- name: owned_marker_read
SELECT run_id, pid, host, started, lock_kind, kept FROM {{schema}}.writeamp_owner

-- name: owned_marker_read_legacy
-- A marker written by a writeamp before the schema lock (no lock_kind, no kept).
SELECT run_id, pid, host FROM {{schema}}.writeamp_owner

-- name: owned_schema_lock
-- The schema's lock, held by the run that made it for as long as it runs: an
-- application lock owned by the session (released when the session ends,
-- however the process ends), in the current database, not waiting
-- (@LockTimeout = 0). sp_getapplock returns 0 or 1 when granted, -1 on
-- timeout (held by another), -2/-3/-999 on errors: 1, 0 or NULL here.
-- https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql
DECLARE @r int;
EXEC @r = sys.sp_getapplock @Resource = @p1, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0;
SELECT CASE WHEN @r >= 0 THEN 1 WHEN @r = -1 THEN 0 END

-- name: owned_schema_unlock
-- https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-releaseapplock-transact-sql
EXEC sys.sp_releaseapplock @Resource = @p1, @LockOwner = 'Session'
