-- The refresh-token workload on PostgreSQL: Keycloak's session tables as its
-- Liquibase changelogs create them (26.7 = baseline, 26.8 = coarse), and the
-- statements Keycloak's JPA layer (Hibernate's PostgreSQLDialect) issues per
-- login, refresh and logout; workloads/refreshtoken/README.md names the source
-- of each. {{schema}} is the workload's own schema. Statement blocks separated
-- by ";" lines. Hibernate renders PESSIMISTIC_WRITE as FOR NO KEY UPDATE on
-- PostgreSQL, and a lock timeout of -2 adds SKIP LOCKED.

-- name: rt_ddl_baseline
-- autovacuum is off on the workload's tables so a vacuum does not land in
-- the measured window (the report says so); HOT pruning still happens.
-- {{fillfactor}} is --fillfactor: 100 (PostgreSQL's default) is what Keycloak ships.
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
) WITH (autovacuum_enabled = false, fillfactor = {{fillfactor}});
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id);
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, created_on, user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session (realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id);
{{block:rt_ddl_client_session}}
CREATE INDEX idx_offline_css_by_user_session_and_offline ON {{schema}}.offline_client_session (offline_flag, user_session_id);
CREATE INDEX idx_offline_css_by_client_and_realm ON {{schema}}.offline_client_session (realm_id, offline_flag, client_id, client_storage_provider, external_client_id)

-- name: rt_ddl_coarse
-- jpa-changelog-26.8.0.xml: SESSION_BUCKET and LAST_SESSION_REFRESH_COARSE,
-- both expiration indexes rebuilt on them with USER_SESSION_ID and USER_ID
-- moved to INCLUDE (leaf-only, PR #51858), the broker index filtered.
-- {{lead_bucket}}/{{mid_bucket}} place SESSION_BUCKET (--bucket-position).
-- IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE is created by
-- rt_css_user_session_index when --css-user-session-index=keep.
CREATE TABLE {{schema}}.offline_user_session (
  {{block:rt_ddl_user_session_columns}}
  session_bucket smallint NOT NULL DEFAULT 0,
  last_session_refresh_coarse bigint NOT NULL DEFAULT 0,
  CONSTRAINT constraint_offl_us_ses_pk2 PRIMARY KEY (user_session_id, offline_flag)
) WITH (autovacuum_enabled = false, fillfactor = {{fillfactor}});
CREATE INDEX idx_offline_uss_by_user ON {{schema}}.offline_user_session (user_id, realm_id, offline_flag);
CREATE INDEX idx_offline_uss_by_broker_session_id ON {{schema}}.offline_user_session (broker_session_id, realm_id) WHERE broker_session_id IS NOT NULL;
CREATE INDEX idx_user_session_expiration_created ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}created_on) INCLUDE (user_session_id, user_id);
CREATE INDEX idx_user_session_expiration_last_refresh ON {{schema}}.offline_user_session ({{lead_bucket}}realm_id, offline_flag, remember_me, {{mid_bucket}}last_session_refresh_coarse) INCLUDE (user_session_id, user_id);
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
  data text,
  last_session_refresh int NOT NULL DEFAULT 0,
  broker_session_id varchar(1024),
  version int DEFAULT 0,
  remember_me boolean,

-- name: rt_ddl_client_session
-- OFFLINE_CLIENT_SESSION and the indexes that baseline and coarse share,
-- included by each rt_ddl_* block; IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE
-- and IDX_OFFLINE_CSS_BY_CLIENT_AND_REALM follow there.
CREATE TABLE {{schema}}.offline_client_session (
  user_session_id varchar(36) NOT NULL,
  client_id varchar(255) NOT NULL,
  offline_flag varchar(4) NOT NULL,
  timestamp int,
  data text,
  client_storage_provider varchar(36) NOT NULL DEFAULT 'local',
  external_client_id varchar(255) NOT NULL DEFAULT 'local',
  version int DEFAULT 0,
  realm_id varchar(36),
  CONSTRAINT constraint_offl_cl_ses_pk3 PRIMARY KEY (user_session_id, client_id, client_storage_provider, external_client_id, offline_flag)
) WITH (autovacuum_enabled = false, fillfactor = {{fillfactor}});
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
WHERE offline_flag = $1 AND user_session_id = $2 AND realm_id = $3 AND last_session_refresh >= $4

-- name: rt_insert_user_session_baseline
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me)
VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, 0, $8)

-- name: rt_insert_user_session_coarse
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me, session_bucket, last_session_refresh_coarse)
VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, 0, $8, $9, $10)

-- name: rt_insert_client_session
INSERT INTO {{schema}}.offline_client_session
  (user_session_id, client_id, offline_flag, timestamp, data, client_storage_provider, external_client_id, version, realm_id)
VALUES ($1, $2, $3, $4, $5, 'local', 'local', 0, $6)

-- name: rt_select_client_sessions
-- The named query findClientSessionsByUserSession.
SELECT user_session_id, client_id, client_storage_provider, external_client_id, timestamp, version, offline_flag, data
FROM {{schema}}.offline_client_session
WHERE offline_flag = $1 AND user_session_id = $2

-- name: rt_lock_user_session_skip_locked
-- PR #49454's prepare step: PESSIMISTIC_WRITE, lock timeout -2.
SELECT version FROM {{schema}}.offline_user_session
WHERE offline_flag = $1 AND user_session_id = $2 FOR NO KEY UPDATE SKIP LOCKED

-- name: rt_lock_client_session_skip_locked
SELECT version FROM {{schema}}.offline_client_session
WHERE client_id = $1 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = $2 AND user_session_id = $3
FOR NO KEY UPDATE SKIP LOCKED

-- name: rt_update_user_session
-- @DynamicUpdate + @Version: the changed column and the new VERSION, checked against the old.
UPDATE {{schema}}.offline_user_session SET last_session_refresh = $1, version = $2
WHERE offline_flag = $3 AND user_session_id = $4 AND version = $5

-- name: rt_update_user_session_coarse
UPDATE {{schema}}.offline_user_session SET last_session_refresh = $1, last_session_refresh_coarse = $2, version = $3
WHERE offline_flag = $4 AND user_session_id = $5 AND version = $6

-- name: rt_update_client_session
UPDATE {{schema}}.offline_client_session SET timestamp = $1, version = $2
WHERE client_id = $3 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = $4 AND user_session_id = $5 AND version = $6

-- name: rt_delete_client_session
-- removeUserSession deletes the loaded client sessions one by one (@Version).
DELETE FROM {{schema}}.offline_client_session
WHERE client_id = $1 AND client_storage_provider = 'local' AND external_client_id = 'local' AND offline_flag = $2 AND user_session_id = $3 AND version = $4

-- name: rt_lock_user_session
-- em.find(PersistentUserSessionEntity, key, PESSIMISTIC_WRITE) in removeUserSession.
SELECT user_session_id, realm_id, user_id, created_on, last_session_refresh, broker_session_id, version, offline_flag, data, remember_me
FROM {{schema}}.offline_user_session
WHERE offline_flag = $1 AND user_session_id = $2 FOR NO KEY UPDATE

-- name: rt_delete_user_session
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = $1 AND user_session_id = $2 AND version = $3

-- name: rt_seed_stats
-- Production tables have planner statistics; the workload's start empty and
-- autovacuum (so autoanalyze) is off for them. Without statistics the planner
-- took the partial index on ('local', 'local', flag) for primary-key lookups
-- and read every client session per refresh, visiting and pruning heap pages
-- production never would. So, before the window: representative rows,
-- ANALYZE, TRUNCATE. The column statistics stay; no row does.
INSERT INTO {{schema}}.offline_user_session
  (user_session_id, user_id, realm_id, created_on, offline_flag, data, last_session_refresh, broker_session_id, version, remember_me)
SELECT left(md5(g::text) || md5(g::text), 36), 'seed-user-' || g, {{realm_id}}, 1700000000 + g, '0', repeat('x', 370), 1700000000 + g, NULL, 0, false
FROM generate_series(1, 500) g;
INSERT INTO {{schema}}.offline_client_session
  (user_session_id, client_id, offline_flag, timestamp, data, client_storage_provider, external_client_id, version, realm_id)
SELECT left(md5(g::text) || md5(g::text), 36), {{client_id}}, '0', 1700000000 + g, repeat('x', 330), 'local', 'local', 0, {{realm_id}}
FROM generate_series(1, 500) g;
ANALYZE {{schema}}.offline_user_session;
ANALYZE {{schema}}.offline_client_session;
TRUNCATE {{schema}}.offline_user_session, {{schema}}.offline_client_session

-- name: rt_expire_find_last_refresh
-- Keycloak's ClearExpiredUserSessions (UserSessionExpirationLogic.expireRegularSessions,
-- 26.7): the named query findExpiredRegularUserSessionsLastRefresh with
-- setMaxResults(expirationBatch); Hibernate 6 renders the limit as FETCH FIRST
-- ? ROWS ONLY and the JPQL literal '0' inline.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = $1 AND offline_flag = '0' AND remember_me = $2 AND last_session_refresh < $3 FETCH FIRST $4 ROWS ONLY

-- name: rt_expire_find_created_on
-- findExpiredRegularUserSessionsCreatedOn, the second pass.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = $1 AND offline_flag = '0' AND remember_me = $2 AND created_on < $3 FETCH FIRST $4 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse
-- 26.8 (assumed, --coarse-expiration; the cleanup's code is not public): the
-- candidates through LAST_SESSION_REFRESH_COARSE, one SESSION_BUCKET at a
-- time, verified against the exact LAST_SESSION_REFRESH.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = $1 AND offline_flag = '0' AND remember_me = $2 AND session_bucket = $3
  AND last_session_refresh_coarse < $4 AND last_session_refresh < $5 FETCH FIRST $6 ROWS ONLY

-- name: rt_expire_find_created_on_coarse
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = $1 AND offline_flag = '0' AND remember_me = $2 AND session_bucket = $3 AND created_on < $4 FETCH FIRST $5 ROWS ONLY

-- name: rt_expire_find_last_refresh_coarse_all
-- --coarse-expiration all-buckets: one range over every bucket.
SELECT user_session_id, user_id FROM {{schema}}.offline_user_session
WHERE realm_id = $1 AND offline_flag = '0' AND remember_me = $2
  AND last_session_refresh_coarse < $3 AND last_session_refresh < $4 FETCH FIRST $5 ROWS ONLY

-- name: rt_expire_delete_client_sessions
-- deleteClientSessionsByUserSessions: "sess.userSessionId in (:userSessionId)
-- and sess.offline = :offline", the batch's ids bound one by one ({{in:N}}
-- expands to them from parameter N, {{after}} is the next parameter).
DELETE FROM {{schema}}.offline_client_session WHERE user_session_id IN ({{in:1}}) AND offline_flag = {{after}}

-- name: rt_expire_delete_user_sessions
-- deleteUserSessions: "sess.offline = :offline and sess.userSessionId in (:userSessionIds)".
DELETE FROM {{schema}}.offline_user_session WHERE offline_flag = $1 AND user_session_id IN ({{in:2}})
