-- The refresh-token workload on MySQL / MariaDB (InnoDB): Keycloak's session
-- tables as its Liquibase changelogs create them (26.7 = baseline, 26.8 =
-- coarse), and the statements Keycloak's JPA layer issues per login, refresh
-- and logout. Same block names and argument order as postgres/refresh_token.sql.
-- {{schema}} is the workload's own schema, which in MySQL is a database.
-- DDL blocks hold several statements, each ending with ";" at a line end.
-- Differences from PostgreSQL, all Keycloak's own MySQL choices: longtext for
-- DATA, tinyint(1) for REMEMBER_ME, TEXT for BROKER_SESSION_ID indexed by a
-- 255-character prefix, no partial (filtered) indexes, which MySQL does not
-- have (those indexes are plain here and get an entry for every row), and no
-- INCLUDE: 26.8's expiration indexes keep USER_SESSION_ID and USER_ID as
-- trailing key columns. Hibernate's MySQL/MariaDB dialects write
-- PESSIMISTIC_WRITE as FOR UPDATE, with SKIP LOCKED for a lock timeout of -2
-- (MySQL 8.0, MariaDB 10.6+). TIMESTAMP is a non-reserved keyword, valid
-- unquoted as a column name.

-- name: rt_ddl_baseline
-- USER_ID is nullable in Keycloak's MariaDB/MySQL schema (NOT NULL on PostgreSQL).
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
) ENGINE=InnoDB;
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id(255), realm_id);
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, created_on, user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id);
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_coarse
-- 26.8 on MySQL/MariaDB: SESSION_BUCKET and LAST_SESSION_REFRESH_COARSE, the
-- expiration indexes rebuilt on them with USER_SESSION_ID and USER_ID still
-- trailing key columns (no INCLUDE here). IDX_OFFLINE_USS_BY_BROKER_SESSION_ID
-- is filtered on PostgreSQL and SQL Server only: here it stays a plain prefix
-- index, so every login still inserts into it. {{lead_bucket}}/{{mid_bucket}}
-- place SESSION_BUCKET (--bucket-position).
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  session_bucket smallint NOT NULL DEFAULT 0,
  last_session_refresh_coarse bigint NOT NULL DEFAULT 0,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
) ENGINE=InnoDB;
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id(255), realm_id);
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on, user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse, user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_user_session_columns
-- OFFLINE_USER_SESSION's columns that baseline and coarse share, included by
-- each rt_ddl_* block ({{block:...}}); coarse adds its own after them.
  user_session_id varchar(36) NOT NULL,
  user_id varchar(255),
  realm_id varchar(36) NOT NULL,
  created_on int NOT NULL,
  offline_flag varchar(4) NOT NULL,
  data longtext,
  last_session_refresh int NOT NULL DEFAULT 0,
  broker_session_id text,
  version int DEFAULT 0,
  remember_me tinyint(1),

-- name: rt_ddl_client_session
-- OFFLINE_CLIENT_SESSION and the indexes that baseline and coarse share,
-- included by each rt_ddl_* block; IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE
-- and IDX_OFFLINE_CSS_BY_CLIENT_AND_REALM follow there.
CREATE TABLE {{schema}}.offline_client_session (
  user_session_id varchar(36) NOT NULL,
  client_id varchar(255) NOT NULL,
  offline_flag varchar(4) NOT NULL,
  timestamp int,
  data longtext,
  client_storage_provider varchar(36) NOT NULL DEFAULT 'local',
  external_client_id varchar(255) NOT NULL DEFAULT 'local',
  version int DEFAULT 0,
  realm_id varchar(36),
  CONSTRAINT constraint_offl_cl_ses_pk3 PRIMARY KEY (user_session_id, client_id, client_storage_provider, external_client_id, offline_flag)
) ENGINE=InnoDB;
CREATE INDEX idx_offline_css_by_client ON {{schema}}.offline_client_session (client_id, offline_flag);
CREATE INDEX idx_offline_css_by_client_storage_provider ON {{schema}}.offline_client_session (client_storage_provider, external_client_id, offline_flag);

-- name: rt_css_user_session_index
-- The coarse variant with --css-user-session-index=keep.
CREATE INDEX idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id)

-- name: rt_select_user_session
-- The named query findUserSession (JpaUserSessionPersisterProvider.loadUserSession):
-- the login finds nothing, a refresh loads the session it updates.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = ? AND user_session_id = ? AND realm_id = ? AND last_session_refresh >= ?

-- name: rt_insert_user_session_baseline
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me)
VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, ?)

-- name: rt_insert_user_session_coarse
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me, session_bucket, last_session_refresh_coarse)
VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?)

-- name: rt_insert_client_session
INSERT INTO {{schema}}.offline_client_session
  (user_session_id, client_id, offline_flag, timestamp, data, client_storage_provider, external_client_id, version, realm_id)
VALUES (?, ?, ?, ?, ?, 'local', 'local', 0, ?)

-- name: rt_select_client_sessions
-- The named query findClientSessionsByUserSession.
SELECT user_session_id, client_id, client_storage_provider, external_client_id, timestamp, version, offline_flag, data
FROM {{schema}}.offline_client_session
WHERE offline_flag = ? AND user_session_id = ?

-- name: rt_lock_user_session_skip_locked
-- PR #49454's prepare step: PESSIMISTIC_WRITE, lock timeout -2.
SELECT version FROM {{schema}}.offline_user_session
WHERE offline_flag = ? AND user_session_id = ? FOR UPDATE SKIP LOCKED

-- name: rt_lock_client_session_skip_locked
SELECT version FROM {{schema}}.offline_client_session
WHERE client_id = ? AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = ? AND user_session_id = ?
FOR UPDATE SKIP LOCKED

-- name: rt_update_user_session
-- @DynamicUpdate + @Version: the changed column and the new VERSION, checked against the old.
UPDATE {{schema}}.offline_user_session SET last_session_refresh = ?, version = ?
WHERE offline_flag = ? AND user_session_id = ? AND version = ?

-- name: rt_update_user_session_coarse
UPDATE {{schema}}.offline_user_session SET last_session_refresh = ?, last_session_refresh_coarse = ?, version = ?
WHERE offline_flag = ? AND user_session_id = ? AND version = ?

-- name: rt_update_client_session
UPDATE {{schema}}.offline_client_session SET timestamp = ?, version = ?
WHERE client_id = ? AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = ? AND user_session_id = ? AND version = ?

-- name: rt_delete_client_session
-- removeUserSession deletes the loaded client sessions one by one (@Version).
DELETE FROM {{schema}}.offline_client_session
WHERE client_id = ? AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = ? AND user_session_id = ? AND version = ?

-- name: rt_lock_user_session
-- em.find(PersistentUserSessionEntity, key, PESSIMISTIC_WRITE) in removeUserSession.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = ? AND user_session_id = ? FOR UPDATE

-- name: rt_delete_user_session
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = ? AND user_session_id = ? AND version = ?

-- name: rt_expire_find_last_refresh
-- Keycloak's ClearExpiredUserSessions (UserSessionExpirationLogic.expireRegularSessions,
-- 26.7): findExpiredRegularUserSessionsLastRefresh with setMaxResults
-- (expirationBatch), which Hibernate's MySQL and MariaDB dialects render as LIMIT ?.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = ? AND offline_flag = '0' AND remember_me = ? AND last_session_refresh < ? LIMIT ?

-- name: rt_expire_find_created_on
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = ? AND offline_flag = '0' AND remember_me = ? AND created_on < ? LIMIT ?

-- name: rt_expire_find_last_refresh_coarse
-- 26.8 (assumed, --coarse-expiration): candidates through the coarse column per
-- SESSION_BUCKET, verified against LAST_SESSION_REFRESH.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = ? AND offline_flag = '0' AND remember_me = ? AND session_bucket = ?
  AND last_session_refresh_coarse < ? AND last_session_refresh < ? LIMIT ?

-- name: rt_expire_find_created_on_coarse
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = ? AND offline_flag = '0' AND remember_me = ? AND session_bucket = ? AND created_on < ? LIMIT ?

-- name: rt_expire_find_last_refresh_coarse_all
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = ? AND offline_flag = '0' AND remember_me = ?
  AND last_session_refresh_coarse < ? AND last_session_refresh < ? LIMIT ?

-- name: rt_expire_delete_client_sessions
-- deleteClientSessionsByUserSessions; {{in:N}} expands to the batch's ids.
DELETE FROM {{schema}}.offline_client_session WHERE user_session_id IN ({{in:1}}) AND offline_flag = {{after}}

-- name: rt_expire_delete_user_sessions
-- deleteUserSessions.
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = ? AND user_session_id IN ({{in:2}})
