-- The owned-schema lifecycle every built-in workload shares (workloads/owned):
-- a schema (an Oracle user that cannot log in, NO AUTHENTICATION, 18c+) of
-- its own per variant, an owner marker in it, and a lock named after it that
-- the run holds while the schema exists. {{schema}} is the schema; parameters
-- are :1..:N. owned_list_schemas lists every WRITEAMP_ user; the package
-- keeps those of one workload's prefix. The privileges the workload's
-- objects need are listed in refresh_token.sql and the README.

-- name: owned_list_schemas
SELECT username FROM all_users WHERE username LIKE 'WRITEAMP\_%' ESCAPE '\' ORDER BY username

-- name: owned_create_schema
-- The default permanent tablespace differs (USERS, DATA on Autonomous), so
-- the quota is granted on whichever the database has.
-- min_version: 180000
DECLARE
  ts VARCHAR2(128);
BEGIN
  SELECT property_value INTO ts FROM database_properties WHERE property_name = 'DEFAULT_PERMANENT_TABLESPACE';
  EXECUTE IMMEDIATE 'CREATE USER {{schema}} NO AUTHENTICATION DEFAULT TABLESPACE ' || DBMS_ASSERT.SIMPLE_SQL_NAME(ts) || ' QUOTA UNLIMITED ON ' || DBMS_ASSERT.SIMPLE_SQL_NAME(ts);
END;

-- name: owned_drop_schema
DROP USER {{schema}} CASCADE

-- name: owned_marker_create
CREATE TABLE {{schema}}.writeamp_owner (run_id VARCHAR2(64) NOT NULL, pid NUMBER(10) NOT NULL, host VARCHAR2(255) NOT NULL, started VARCHAR2(64) NOT NULL, lock_kind VARCHAR2(16) NOT NULL, kept NUMBER(1) NOT NULL)

-- name: owned_marker_insert
INSERT INTO {{schema}}.writeamp_owner (run_id, pid, host, started, lock_kind, kept) VALUES (:1, :2, :3, :4, :5, :6)

-- name: owned_marker_read
SELECT run_id, pid, host, started, lock_kind, kept FROM {{schema}}.writeamp_owner

-- name: owned_marker_read_legacy
-- A marker written by a writeamp before the schema lock (no lock_kind, no kept).
SELECT run_id, pid, host FROM {{schema}}.writeamp_owner

-- name: owned_schema_lock
-- The schema's lock, held by the run that made it for as long as it runs: a
-- DBMS_LOCK user lock in exclusive mode, not waiting (timeout 0), kept past
-- commits (release_on_commit FALSE) until released or the session ends.
-- REQUEST returns 0 granted, 1 timeout (held by another), 4 already owned by
-- this session; a lock held by another raises ORA-20001 here, any other
-- result ORA-20002. ALLOCATE_UNIQUE commits. Needs EXECUTE on SYS.DBMS_LOCK.
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/arpls/DBMS_LOCK.html
DECLARE
  n VARCHAR2(128) := :1;
  h VARCHAR2(128);
  r INTEGER;
BEGIN
  DBMS_LOCK.ALLOCATE_UNIQUE(n, h);
  r := DBMS_LOCK.REQUEST(h, DBMS_LOCK.X_MODE, 0, FALSE);
  IF r = 1 THEN
    RAISE_APPLICATION_ERROR(-20001, 'writeamp: lock ' || n || ' is held by another session');
  ELSIF r NOT IN (0, 4) THEN
    RAISE_APPLICATION_ERROR(-20002, 'writeamp: DBMS_LOCK.REQUEST(' || n || ') returned ' || r);
  END IF;
END;

-- name: owned_schema_unlock
-- RELEASE returns 0 released, 4 not owned; either way the lock is not ours.
DECLARE
  n VARCHAR2(128) := :1;
  h VARCHAR2(128);
  r INTEGER;
BEGIN
  DBMS_LOCK.ALLOCATE_UNIQUE(n, h);
  r := DBMS_LOCK.RELEASE(h);
END;
