-- pg_stat_statements, read per entry and diffed across a window; writeamp
-- never calls pg_stat_statements_reset(). The blocks are gated on the
-- extension's own version (1.8 = 10800), not the server's: the view's
-- columns are the installed extension's, and an upgraded server keeps the
-- old version until ALTER EXTENSION pg_stat_statements UPDATE.
-- Columns as documented in https://www.postgresql.org/docs/current/pgstatstatements.html
-- (and each major's page: 13 introduced wal_records/wal_fpi/wal_bytes and
-- total_exec_time (1.8); 14 toplevel and pg_stat_statements_info (1.9); 17
-- renamed blk_write_time to shared_blk_write_time and added stats_since (1.11)).
-- {{schema}} is the extension's schema, quoted.

-- name: pg_stat_statements_ext
SELECT n.nspname, e.extversion
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'pg_stat_statements'

-- name: pg_stat_statements
-- The entries of this database only: the window is the database's. A NULL
-- queryid is an entry whose text this login may not see (another user's,
-- without pg_read_all_stats).
-- max_version: 10900
SELECT s.queryid::text || '/' || s.userid::text || '/t', s.query, ''::text,
       s.calls::float8, s.rows::float8, s.total_exec_time, s.wal_bytes::float8, s.wal_records::float8,
       s.wal_fpi::float8, s.shared_blks_dirtied::float8, s.shared_blks_written::float8, s.blk_write_time
FROM {{schema}}.pg_stat_statements s
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.queryid IS NOT NULL

-- name: pg_stat_statements
-- min_version: 10900
-- max_version: 11100
SELECT s.queryid::text || '/' || s.userid::text || '/' || CASE WHEN s.toplevel THEN 't' ELSE 'n' END, s.query, ''::text,
       s.calls::float8, s.rows::float8, s.total_exec_time, s.wal_bytes::float8, s.wal_records::float8,
       s.wal_fpi::float8, s.shared_blks_dirtied::float8, s.shared_blks_written::float8, s.blk_write_time
FROM {{schema}}.pg_stat_statements s
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.queryid IS NOT NULL

-- name: pg_stat_statements
-- min_version: 11100
SELECT s.queryid::text || '/' || s.userid::text || '/' || CASE WHEN s.toplevel THEN 't' ELSE 'n' END, s.query, s.stats_since::text,
       s.calls::float8, s.rows::float8, s.total_exec_time, s.wal_bytes::float8, s.wal_records::float8,
       s.wal_fpi::float8, s.shared_blks_dirtied::float8, s.shared_blks_written::float8, s.shared_blk_write_time
FROM {{schema}}.pg_stat_statements s
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.queryid IS NOT NULL

-- name: pg_stat_statements_info
-- min_version: 10900
SELECT dealloc::float8, stats_reset::text FROM {{schema}}.pg_stat_statements_info

-- name: statements_ledger
-- Whether pg_stat_statements is loaded (shared_preload_libraries) and
-- created in this database, and its comment: writeamp records in it that it
-- created the extension (--create-pg-stat-statements), so only that one is
-- ever dropped.
SELECT coalesce(current_setting('shared_preload_libraries', true), '') ~ '(^|[ ,])"?pg_stat_statements"?($|[ ,])',
       count(e.oid) > 0, coalesce(max(obj_description(e.oid, 'pg_extension')), '')
FROM (SELECT 1) one LEFT JOIN pg_extension e ON e.extname = 'pg_stat_statements'

-- name: statements_share
-- Held shared by every writeamp session using a pg_stat_statements writeamp
-- created; the last one out (statements_sole) drops it.
SELECT pg_advisory_lock_shared(hashtextextended('writeamp:pg_stat_statements', 0))

-- name: statements_sole
SELECT pg_try_advisory_lock(hashtextextended('writeamp:pg_stat_statements', 0))

-- name: statements_create_lock
SELECT pg_advisory_xact_lock(hashtextextended('writeamp:pg_stat_statements:create', 0))

-- name: create_statements
CREATE EXTENSION IF NOT EXISTS pg_stat_statements

-- name: statements_mark
COMMENT ON EXTENSION pg_stat_statements IS {{comment}}

-- name: drop_statements
-- Its counters live in the server's shared memory, not in the extension:
-- dropping the extension's view loses nothing the server had.
DROP EXTENSION IF EXISTS pg_stat_statements
