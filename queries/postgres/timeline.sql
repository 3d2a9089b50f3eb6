-- The interval sampler's one statement (measure/run --interval), run in a
-- READ ONLY transaction that is rolled back, so a reading is no commit in
-- pg_stat_database and writes no WAL. $1: the oids of the scope's tables
-- (at most a bounded number) whose HOT updates are summed; $2: whether the
-- WAL insert position is readable (a standby has none).
-- pg_current_wal_insert_lsn(): https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-BACKUP
-- pg_stat_database tup_inserted/tup_updated/tup_deleted/xact_commit and
-- pg_stat_get_tuples_hot_updated(): https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-DATABASE-VIEW

-- name: timeline
SELECT CASE WHEN $2::bool THEN pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::numeric::text END,
       d.tup_inserted, d.tup_updated, d.tup_deleted, d.xact_commit,
       (SELECT coalesce(sum(pg_stat_get_tuples_hot_updated(r)), 0)::bigint FROM unnest($1::oid[]) r)
FROM pg_stat_database d
WHERE d.datname = current_database()
