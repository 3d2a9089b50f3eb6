-- The refresh-token workload on SQL Server: Keycloak's session tables as its
-- Liquibase changelogs create them on MSSQL (26.7 = baseline, 26.8 = coarse):
-- varchar keys, nvarchar(max) DATA, bit REMEMBER_ME, filtered indexes, INCLUDE
-- columns and OPTIMIZE_FOR_SEQUENTIAL_KEY on the coarse expiration indexes
-- (the option is 2019+). Hibernate's SQLServerDialect writes PESSIMISTIC_WRITE
-- as WITH (UPDLOCK, HOLDLOCK, ROWLOCK), and with a lock timeout of -2 (skip
-- locked) as WITH (UPDLOCK, ROWLOCK, READPAST); workloads/refreshtoken/README.md
-- names the source of each statement.
-- {{schema}} is the workload's own schema. Statement blocks split on ";" lines.
--
-- Parameters are @p1..@pN in the order the workload passes them. go-mssqldb
-- sends Go strings as nvarchar; compared with a varchar key column that
-- forces a conversion of the column and, under SQL collations, an index scan
-- instead of a seek (why Keycloak runs with sendStringParametersAsUnicode=false).
-- So every string compared with a key column is CAST to the column's type:
-- the statements seek exactly as Keycloak's do.

-- name: rt_ddl_baseline
-- The primary keys are clustered (SQL Server's default), as Keycloak's are.
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, created_on, user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id);
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_coarse
-- jpa-changelog-26.8.0.xml on SQL Server 2016/2017: SESSION_BUCKET and
-- LAST_SESSION_REFRESH_COARSE, the expiration indexes rebuilt on them with
-- USER_SESSION_ID and USER_ID as INCLUDE columns (PR #51858), the broker
-- index filtered; no OPTIMIZE_FOR_SEQUENTIAL_KEY (it is 2019+).
-- {{lead_bucket}}/{{mid_bucket}} place SESSION_BUCKET (--bucket-position).
-- max_version: 1500000
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  session_bucket smallint NOT NULL DEFAULT 0,
  last_session_refresh_coarse bigint NOT NULL DEFAULT 0,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id) WHERE broker_session_id IS NOT NULL;
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on) INCLUDE (user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse) INCLUDE (user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_coarse
-- SQL Server 2019+ and Azure: as above, and Keycloak 26.8 creates the
-- expiration indexes WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON) against
-- last-page insert contention (its DatabaseIndexCheckerTest requires INCLUDE
-- and the option for IDX_USER_SESSION_EXPIRATION_CREATED; the same for
-- _LAST_REFRESH is an assumption the report lists).
-- min_version: 1500000
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  session_bucket smallint NOT NULL DEFAULT 0,
  last_session_refresh_coarse bigint NOT NULL DEFAULT 0,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
);
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id) WHERE broker_session_id IS NOT NULL;
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on) INCLUDE (user_session_id, user_id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse) INCLUDE (user_session_id, user_id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_user_session_columns
-- OFFLINE_USER_SESSION's columns that baseline and coarse share, included by
-- each rt_ddl_* block ({{block:...}}); coarse adds its own after them.
  user_session_id varchar(36) NOT NULL,
  user_id varchar(255) NOT NULL,
  realm_id varchar(36) NOT NULL,
  created_on int NOT NULL,
  offline_flag varchar(4) NOT NULL,
  data nvarchar(max),
  last_session_refresh int NOT NULL DEFAULT 0,
  broker_session_id varchar(1024),
  version int DEFAULT 0,
  remember_me bit,

-- name: rt_ddl_client_session
-- OFFLINE_CLIENT_SESSION and the indexes that baseline and coarse share,
-- included by each rt_ddl_* block; IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE
-- and IDX_OFFLINE_CSS_BY_CLIENT_AND_REALM follow there.
CREATE TABLE {{schema}}.offline_client_session (
  user_session_id varchar(36) NOT NULL,
  client_id varchar(255) NOT NULL,
  offline_flag varchar(4) NOT NULL,
  timestamp int,
  data nvarchar(max),
  client_storage_provider varchar(36) NOT NULL DEFAULT 'local',
  external_client_id varchar(255) NOT NULL DEFAULT 'local',
  version int DEFAULT 0,
  realm_id varchar(36),
  CONSTRAINT constraint_offl_cl_ses_pk3 PRIMARY KEY (user_session_id, client_id, client_storage_provider, external_client_id, offline_flag)
);
CREATE INDEX idx_offline_css_by_client ON {{schema}}.offline_client_session (client_id, offline_flag) WHERE client_id <> 'external';
CREATE INDEX idx_offline_css_by_client_storage_provider ON {{schema}}.offline_client_session (client_storage_provider, external_client_id, offline_flag) WHERE client_storage_provider <> 'internal';

-- name: rt_css_user_session_index
-- The coarse variant with --css-user-session-index=keep.
CREATE INDEX idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id)

-- name: rt_select_user_session
-- The named query findUserSession (JpaUserSessionPersisterProvider.loadUserSession):
-- the login finds nothing, a refresh loads the session it updates.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id = CAST(@p2 AS varchar(36)) AND realm_id = CAST(@p3 AS varchar(36)) AND last_session_refresh >= @p4

-- name: rt_insert_user_session_baseline
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me)
VALUES (@p1, @p2, @p3, @p4, @p5, @p6, @p7, NULL, 0, @p8)

-- name: rt_insert_user_session_coarse
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me, session_bucket, last_session_refresh_coarse)
VALUES (@p1, @p2, @p3, @p4, @p5, @p6, @p7, NULL, 0, @p8, @p9, @p10)

-- name: rt_insert_client_session
INSERT INTO {{schema}}.offline_client_session
  (user_session_id, client_id, offline_flag, timestamp, data, client_storage_provider, external_client_id, version, realm_id)
VALUES (@p1, @p2, @p3, @p4, @p5, 'local', 'local', 0, @p6)

-- name: rt_select_client_sessions
-- The named query findClientSessionsByUserSession.
SELECT user_session_id, client_id, client_storage_provider, external_client_id, timestamp, version, offline_flag, data
FROM {{schema}}.offline_client_session
WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id = CAST(@p2 AS varchar(36))

-- name: rt_lock_user_session_skip_locked
-- PR #49454's prepare step: PESSIMISTIC_WRITE, lock timeout -2.
SELECT version FROM {{schema}}.offline_user_session WITH (UPDLOCK, ROWLOCK, READPAST)
WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id = CAST(@p2 AS varchar(36))

-- name: rt_lock_client_session_skip_locked
SELECT version FROM {{schema}}.offline_client_session WITH (UPDLOCK, ROWLOCK, READPAST)
WHERE client_id = CAST(@p1 AS varchar(255)) AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = CAST(@p2 AS varchar(4)) AND user_session_id = CAST(@p3 AS varchar(36))

-- name: rt_update_user_session
-- @DynamicUpdate + @Version: the changed column and the new VERSION, checked against the old.
UPDATE {{schema}}.offline_user_session SET last_session_refresh = @p1, version = @p2
WHERE offline_flag = CAST(@p3 AS varchar(4)) AND user_session_id = CAST(@p4 AS varchar(36)) AND version = @p5

-- name: rt_update_user_session_coarse
UPDATE {{schema}}.offline_user_session SET last_session_refresh = @p1, last_session_refresh_coarse = @p2, version = @p3
WHERE offline_flag = CAST(@p4 AS varchar(4)) AND user_session_id = CAST(@p5 AS varchar(36)) AND version = @p6

-- name: rt_update_client_session
UPDATE {{schema}}.offline_client_session SET timestamp = @p1, version = @p2
WHERE client_id = CAST(@p3 AS varchar(255)) AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = CAST(@p4 AS varchar(4)) AND user_session_id = CAST(@p5 AS varchar(36)) AND version = @p6

-- name: rt_delete_client_session
-- removeUserSession deletes the loaded client sessions one by one (@Version).
DELETE FROM {{schema}}.offline_client_session
WHERE client_id = CAST(@p1 AS varchar(255)) AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = CAST(@p2 AS varchar(4)) AND user_session_id = CAST(@p3 AS varchar(36)) AND version = @p4

-- name: rt_lock_user_session
-- em.find(PersistentUserSessionEntity, key, PESSIMISTIC_WRITE) in removeUserSession.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id = CAST(@p2 AS varchar(36))

-- name: rt_delete_user_session
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id = CAST(@p2 AS varchar(36)) AND version = @p3

-- name: rt_expire_find_last_refresh
-- Keycloak's ClearExpiredUserSessions (UserSessionExpirationLogic.expireRegularSessions,
-- 26.7): findExpiredRegularUserSessionsLastRefresh with setMaxResults
-- (expirationBatch). Hibernate 6's SQL Server translator renders the limit as
-- OFFSET/FETCH, which needs an ORDER BY, so it adds ORDER BY @@version.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = CAST(@p1 AS varchar(36)) AND offline_flag = '0' AND remember_me = @p2 AND last_session_refresh < @p3
ORDER BY @@version OFFSET 0 ROWS FETCH FIRST @p4 ROWS ONLY

-- name: rt_expire_find_created_on
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = CAST(@p1 AS varchar(36)) AND offline_flag = '0' AND remember_me = @p2 AND created_on < @p3
ORDER BY @@version OFFSET 0 ROWS FETCH FIRST @p4 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse
-- 26.8 (assumed, --coarse-expiration): candidates through the coarse column per
-- SESSION_BUCKET, verified against LAST_SESSION_REFRESH.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = CAST(@p1 AS varchar(36)) AND offline_flag = '0' AND remember_me = @p2 AND session_bucket = @p3
  AND last_session_refresh_coarse < @p4 AND last_session_refresh < @p5
ORDER BY @@version OFFSET 0 ROWS FETCH FIRST @p6 ROWS ONLY

-- name: rt_expire_find_created_on_coarse
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = CAST(@p1 AS varchar(36)) AND offline_flag = '0' AND remember_me = @p2 AND session_bucket = @p3 AND created_on < @p4
ORDER BY @@version OFFSET 0 ROWS FETCH FIRST @p5 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse_all
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = CAST(@p1 AS varchar(36)) AND offline_flag = '0' AND remember_me = @p2
  AND last_session_refresh_coarse < @p3 AND last_session_refresh < @p4
ORDER BY @@version OFFSET 0 ROWS FETCH FIRST @p5 ROWS ONLY

-- name: rt_expire_delete_client_sessions
-- deleteClientSessionsByUserSessions; {{in:N}} expands to the batch's ids,
-- each CAST to varchar(36) like every other key here (an nvarchar parameter
-- would convert the column and scan).
DELETE FROM {{schema}}.offline_client_session WHERE user_session_id IN ({{in:1}}) AND offline_flag = CAST({{after}} AS varchar(4))

-- name: rt_expire_delete_user_sessions
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = CAST(@p1 AS varchar(4)) AND user_session_id IN ({{in:2}})
