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
--                                          owned_create_schema (owned.sql) gives it QUOTA UNLIMITED on the default
--                                          permanent tablespace, which CREATE USER allows
-- e.g. GRANT CREATE USER, DROP USER, CREATE ANY TABLE, CREATE ANY INDEX,
--      SELECT ANY TABLE, INSERT ANY TABLE, UPDATE ANY TABLE, DELETE ANY TABLE TO <user>;
-- Use a test database: these are powerful privileges.

-- name: rt_ddl_baseline
-- The workload's schema is a NO AUTHENTICATION user: 18c or later.
-- min_version: 180000
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_created ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, created_on, user_session_id, user_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id);
{{block:rt_ddl_client_session}}
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
  {{block:rt_ddl_user_session_columns}}
  session_bucket NUMBER(5) DEFAULT 0 NOT NULL,
  last_session_refresh_coarse NUMBER(19) DEFAULT 0 NOT NULL,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX {{schema}}.idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX {{schema}}.idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on, user_session_id, user_id);
CREATE INDEX {{schema}}.idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse, user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX {{schema}}.idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_user_session_columns
-- OFFLINE_USER_SESSION's columns that baseline and coarse share, included by
-- each rt_ddl_* block ({{block:...}}); coarse adds its own after them.
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

-- name: rt_ddl_client_session
-- OFFLINE_CLIENT_SESSION and the indexes that baseline and coarse share,
-- included by each rt_ddl_* block; IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE
-- and IDX_OFFLINE_CSS_BY_CLIENT_AND_REALM follow there.
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

-- name: rt_expire_find_last_refresh
-- Keycloak's ClearExpiredUserSessions (UserSessionExpirationLogic.expireRegularSessions,
-- 26.7): findExpiredRegularUserSessionsLastRefresh with setMaxResults
-- (expirationBatch); Hibernate 6's Oracle 12c+ dialect renders FETCH FIRST ? ROWS ONLY.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = :1 AND offline_flag = '0' AND remember_me = :2 AND last_session_refresh < :3 FETCH FIRST :4 ROWS ONLY

-- name: rt_expire_find_created_on
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = :1 AND offline_flag = '0' AND remember_me = :2 AND created_on < :3 FETCH FIRST :4 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse
-- 26.8 (assumed, --coarse-expiration): candidates through the coarse column per
-- SESSION_BUCKET, verified against LAST_SESSION_REFRESH.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = :1 AND offline_flag = '0' AND remember_me = :2 AND session_bucket = :3
  AND last_session_refresh_coarse < :4 AND last_session_refresh < :5 FETCH FIRST :6 ROWS ONLY

-- name: rt_expire_find_created_on_coarse
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = :1 AND offline_flag = '0' AND remember_me = :2 AND session_bucket = :3 AND created_on < :4 FETCH FIRST :5 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse_all
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = :1 AND offline_flag = '0' AND remember_me = :2
  AND last_session_refresh_coarse < :3 AND last_session_refresh < :4 FETCH FIRST :5 ROWS ONLY

-- name: rt_expire_delete_client_sessions
-- deleteClientSessionsByUserSessions; {{in:N}} expands to the batch's ids
-- (Oracle allows 1000 in a list: --expiration-batch is at most that here).
DELETE FROM {{schema}}.offline_client_session WHERE user_session_id IN ({{in:1}}) AND offline_flag = {{after}}

-- name: rt_expire_delete_user_sessions
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = :1 AND user_session_id IN ({{in:2}})
