-- The refresh-token workload on Oracle: Keycloak's session tables as its
-- Liquibase changelogs create them on Oracle (26.7 = baseline, 26.8 = coarse):
-- VARCHAR2 keys, CLOB DATA, NUMBER(1) REMEMBER_ME, no filtered indexes (Oracle
-- has none; Keycloak creates the plain index there). {{schema}} is the
-- workload's own schema, an Oracle user that cannot log in (NO AUTHENTICATION,
-- 18c+). Statement blocks split on ";" lines; parameters are :1..:N in the
-- order the workload passes them. Indexes are created in the workload's
-- schema (CREATE INDEX schema.index ON schema.table), not in the measuring
-- login's. Hibernate's OracleDialect writes PESSIMISTIC_WRITE as FOR UPDATE,
-- with SKIP LOCKED for a lock timeout of -2 (for_update_clause:
-- https://docs.oracle.com/cd/F82042_01/sqlrf/img_text/for_update_clause.html);
-- workloads/refreshtoken/README.md names the source of each statement.
--
-- Every object is created in {{schema}}, indexes included: an unqualified
-- index name would put the index in the connecting login's schema, where the
-- collectors (scoped to {{schema}}) never see it, where its segment needs the
-- login's own tablespace quota (ORA-01950 at the first INSERT, with deferred
-- segment creation), and where a second run by the same login collides with
-- the first (ORA-00955).
--
-- Privileges the measuring login needs (granted directly or through a role):
--   CREATE USER, DROP USER                 the workload's own schema
--   CREATE ANY TABLE, CREATE ANY INDEX     its tables and indexes, in that schema
--   SELECT/INSERT/UPDATE/DELETE ANY TABLE  the workload's statements there
--   tablespace quota                       of the workload's user, not the login's: "the owner
--                                          of the schema to contain the index must have ... space
--                                          quota" (CREATE INDEX, CREATE TABLE prerequisites,
--                                          https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/CREATE-INDEX.html);
--                                          rt_create_schema gives it QUOTA UNLIMITED on the default
--                                          permanent tablespace, which CREATE USER allows
-- e.g. GRANT CREATE USER, DROP USER, CREATE ANY TABLE, CREATE ANY INDEX,
--      SELECT ANY TABLE, INSERT ANY TABLE, UPDATE ANY TABLE, DELETE ANY TABLE TO <user>;
-- Use a test database: these are powerful privileges.

-- name: rt_list_schemas
SELECT username FROM all_users WHERE username LIKE 'WRITEAMP\_RT\_%' ESCAPE '\' ORDER BY username

-- name: rt_create_schema
-- The default permanent tablespace differs (USERS, DATA on Autonomous), so
-- the quota is granted on whichever the database has.
-- min_version: 180000
DECLARE
  ts VARCHAR2(128);
BEGIN
  SELECT property_value INTO ts FROM database_properties WHERE property_name = 'DEFAULT_PERMANENT_TABLESPACE';
  EXECUTE IMMEDIATE 'CREATE USER {{schema}} NO AUTHENTICATION DEFAULT TABLESPACE ' || DBMS_ASSERT.SIMPLE_SQL_NAME(ts) || ' QUOTA UNLIMITED ON ' || DBMS_ASSERT.SIMPLE_SQL_NAME(ts);
END;

-- name: rt_drop_schema
DROP USER {{schema}} CASCADE

-- name: rt_marker_create
CREATE TABLE {{schema}}.writeamp_owner (run_id VARCHAR2(64) NOT NULL, pid NUMBER(10) NOT NULL, host VARCHAR2(255) NOT NULL, started VARCHAR2(64) NOT NULL, lock_kind VARCHAR2(16) NOT NULL, kept NUMBER(1) NOT NULL)

-- name: rt_marker_insert
INSERT INTO {{schema}}.writeamp_owner (run_id, pid, host, started, lock_kind, kept) VALUES (:1, :2, :3, :4, :5, :6)

-- name: rt_marker_read
SELECT run_id, pid, host, started, lock_kind, kept FROM {{schema}}.writeamp_owner

-- name: rt_marker_read_legacy
-- A marker written by a writeamp before the schema lock (no lock_kind, no kept).
SELECT run_id, pid, host FROM {{schema}}.writeamp_owner

-- name: rt_schema_lock
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

-- name: rt_schema_unlock
-- RELEASE returns 0 released, 4 not owned; either way the lock is not ours.
DECLARE
  n VARCHAR2(128) := :1;
  h VARCHAR2(128);
  r INTEGER;
BEGIN
  DBMS_LOCK.ALLOCATE_UNIQUE(n, h);
  r := DBMS_LOCK.RELEASE(h);
END;

-- name: rt_ddl_baseline
-- The workload's schema is a NO AUTHENTICATION user: 18c or later.
-- min_version: 180000
CREATE TABLE {{schema}}.offline_user_session (
  user_session_id VARCHAR2(36) NOT NULL,
  user_id VARCHAR2(255) NOT NULL,
  realm_id VARCHAR2(36) NOT NULL,
  created_on INTEGER NOT NULL,
  offline_flag VARCHAR2(4) NOT NULL,
  data CLOB,
  last_session_refresh INTEGER DEFAULT 0 NOT NULL,
  broker_session_id VARCHAR2(1024),
  version INTEGER DEFAULT 0,
  remember_me NUMBER(1),
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_created ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, created_on, user_session_id, user_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id);
CREATE TABLE {{schema}}.offline_client_session (
  user_session_id VARCHAR2(36) NOT NULL,
  client_id VARCHAR2(255) NOT NULL,
  offline_flag VARCHAR2(4) NOT NULL,
  timestamp INTEGER,
  data CLOB,
  client_storage_provider VARCHAR2(36) DEFAULT 'local' NOT NULL,
  external_client_id VARCHAR2(255) DEFAULT 'local' NOT NULL,
  version INTEGER DEFAULT 0,
  realm_id VARCHAR2(36),
  CONSTRAINT constraint_offl_cl_ses_pk3 PRIMARY KEY (user_session_id, client_id, client_storage_provider, external_client_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_css_by_client ON {{schema}}.offline_client_session (client_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_css_by_client_storage_provider ON {{schema}}.offline_client_session (client_storage_provider, external_client_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id);
CREATE INDEX {{schema}}.idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_coarse
-- jpa-changelog-26.8.0.xml on Oracle: SESSION_BUCKET and
-- LAST_SESSION_REFRESH_COARSE, the expiration indexes rebuilt on them with
-- USER_SESSION_ID and USER_ID still trailing key columns (Oracle has no
-- INCLUDE), the broker index unfiltered (filtered only on PostgreSQL and SQL
-- Server). {{lead_bucket}}/{{mid_bucket}} place SESSION_BUCKET (--bucket-position).
-- min_version: 180000
CREATE TABLE {{schema}}.offline_user_session (
  user_session_id VARCHAR2(36) NOT NULL,
  user_id VARCHAR2(255) NOT NULL,
  realm_id VARCHAR2(36) NOT NULL,
  created_on INTEGER NOT NULL,
  offline_flag VARCHAR2(4) NOT NULL,
  data CLOB,
  last_session_refresh INTEGER DEFAULT 0 NOT NULL,
  broker_session_id VARCHAR2(1024),
  version INTEGER DEFAULT 0,
  remember_me NUMBER(1),
  session_bucket NUMBER(5) DEFAULT 0 NOT NULL,
  last_session_refresh_coarse NUMBER(19) DEFAULT 0 NOT NULL,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on, user_session_id, user_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse, user_session_id, user_id);
CREATE TABLE {{schema}}.offline_client_session (
  user_session_id VARCHAR2(36) NOT NULL,
  client_id VARCHAR2(255) NOT NULL,
  offline_flag VARCHAR2(4) NOT NULL,
  timestamp INTEGER,
  data CLOB,
  client_storage_provider VARCHAR2(36) DEFAULT 'local' NOT NULL,
  external_client_id VARCHAR2(255) DEFAULT 'local' NOT NULL,
  version INTEGER DEFAULT 0,
  realm_id VARCHAR2(36),
  CONSTRAINT constraint_offl_cl_ses_pk3 PRIMARY KEY (user_session_id, client_id, client_storage_provider, external_client_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_css_by_client ON {{schema}}.offline_client_session (client_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_css_by_client_storage_provider ON {{schema}}.offline_client_session (client_storage_provider, external_client_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_css_user_session_index
-- The coarse variant with --css-user-session-index=keep.
CREATE INDEX {{schema}}.idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id)

-- name: rt_select_user_session
-- The named query findUserSession (JpaUserSessionPersisterProvider.loadUserSession):
-- the login finds nothing, a refresh loads the session it updates.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = :1 AND user_session_id = :2 AND realm_id = :3 AND last_session_refresh >= :4

-- name: rt_insert_user_session_baseline
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me)
VALUES (:1, :2, :3, :4, :5, :6, :7, NULL, 0, :8)

-- name: rt_insert_user_session_coarse
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me, session_bucket, last_session_refresh_coarse)
VALUES (:1, :2, :3, :4, :5, :6, :7, NULL, 0, :8, :9, :10)

-- name: rt_insert_client_session
INSERT INTO {{schema}}.offline_client_session
  (user_session_id, client_id, offline_flag, timestamp, data, client_storage_provider, external_client_id, version, realm_id)
VALUES (:1, :2, :3, :4, :5, 'local', 'local', 0, :6)

-- name: rt_select_client_sessions
-- The named query findClientSessionsByUserSession.
SELECT user_session_id, client_id, client_storage_provider, external_client_id, timestamp, version, offline_flag, data
FROM {{schema}}.offline_client_session
WHERE offline_flag = :1 AND user_session_id = :2

-- name: rt_lock_user_session_skip_locked
-- PR #49454's prepare step: PESSIMISTIC_WRITE, lock timeout -2.
SELECT version FROM {{schema}}.offline_user_session
WHERE offline_flag = :1 AND user_session_id = :2 FOR UPDATE SKIP LOCKED

-- name: rt_lock_client_session_skip_locked
SELECT version FROM {{schema}}.offline_client_session
WHERE client_id = :1 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = :2 AND user_session_id = :3
FOR UPDATE SKIP LOCKED

-- name: rt_update_user_session
-- @DynamicUpdate + @Version: the changed column and the new VERSION, checked against the old.
UPDATE {{schema}}.offline_user_session SET last_session_refresh = :1, version = :2
WHERE offline_flag = :3 AND user_session_id = :4 AND version = :5

-- name: rt_update_user_session_coarse
UPDATE {{schema}}.offline_user_session SET last_session_refresh = :1, last_session_refresh_coarse = :2, version = :3
WHERE offline_flag = :4 AND user_session_id = :5 AND version = :6

-- name: rt_update_client_session
UPDATE {{schema}}.offline_client_session SET timestamp = :1, version = :2
WHERE client_id = :3 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = :4 AND user_session_id = :5 AND version = :6

-- name: rt_delete_client_session
-- removeUserSession deletes the loaded client sessions one by one (@Version).
DELETE FROM {{schema}}.offline_client_session
WHERE client_id = :1 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = :2 AND user_session_id = :3 AND version = :4

-- name: rt_lock_user_session
-- em.find(PersistentUserSessionEntity, key, PESSIMISTIC_WRITE) in removeUserSession.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = :1 AND user_session_id = :2 FOR UPDATE

-- name: rt_delete_user_session
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = :1 AND user_session_id = :2 AND version = :3
