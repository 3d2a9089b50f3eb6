-- PostgreSQL: preparing and settling the server around a measured window.

-- name: checkpoint
CHECKPOINT

-- name: force_next_flush
-- min_version: 150000
SELECT pg_stat_force_next_flush()

-- name: create_walinspect
CREATE EXTENSION IF NOT EXISTS pg_walinspect

-- name: drop_walinspect
DROP EXTENSION IF EXISTS pg_walinspect

-- name: stats_settle_probe
-- Old statistics collector (13/14): poll the scoped tables' counters (NULL:
-- every user table) until they stop moving.
SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del + n_tup_hot_upd), 0)::bigint
FROM pg_stat_user_tables WHERE $1::text[] IS NULL OR schemaname = ANY($1::text[])

-- name: clear_stats_snapshot
SELECT pg_stat_clear_snapshot()

-- name: snapshot_consistency
-- min_version: 150000
SET LOCAL stats_fetch_consistency = snapshot

-- name: flush_lsn
SELECT pg_wal_lsn_diff(pg_current_wal_flush_lsn(), $1::pg_lsn)::bigint

-- name: walinspect_schema
SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_walinspect'

-- name: create_temp_slot
-- immediately_reserve: the slot holds WAL from the last checkpoint's redo
-- point on, which is before the window starts; temporary: the server drops it
-- when this connection ends. Creating a physical slot writes no WAL.
SELECT 1 FROM pg_create_physical_replication_slot($1, true, true)

-- name: create_slot
SELECT 1 FROM pg_create_physical_replication_slot($1, true, false)

-- name: drop_slot
SELECT pg_drop_replication_slot($1)

-- name: drop_slot_if_exists
SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1

-- name: list_slots
SELECT slot_name::text, active, coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn), 0)::bigint
FROM pg_replication_slots WHERE slot_name LIKE $1 ORDER BY 1

-- name: walinspect_share
-- Every writeamp session that uses a pg_walinspect writeamp created holds this
-- session-level advisory lock shared for its window; the last one out (the
-- one that gets it exclusively) drops the extension. Held across hosts and
-- PID namespaces, freed by the server when a session ends however it ends.
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS
SELECT pg_advisory_lock_shared(hashtextextended('writeamp:pg_walinspect', 0))

-- name: walinspect_sole
-- True when no other session holds the lock above (this session's own
-- shared hold does not conflict with its exclusive request).
SELECT pg_try_advisory_lock(hashtextextended('writeamp:pg_walinspect', 0))

-- name: walinspect_unlock
SELECT pg_advisory_unlock_all()

-- name: walinspect_create_lock
-- Two runs creating the extension at once would race on pg_extension's
-- unique name: creation is serialized, inside its transaction.
SELECT pg_advisory_xact_lock(hashtextextended('writeamp:pg_walinspect:create', 0))

-- name: walinspect_ledger
-- Whether pg_walinspect is installed, and its comment: writeamp records in
-- it that it created the extension, and when (walinspect_mark), so a later
-- run finishes the cleanup of one that did not.
SELECT count(*) > 0, coalesce(max(obj_description(e.oid, 'pg_extension')), '')
FROM pg_extension e WHERE e.extname = 'pg_walinspect'

-- name: walinspect_mark
COMMENT ON EXTENSION pg_walinspect IS {{comment}}

-- name: walinspect_unshare_sole
-- Gives back the exclusive hold walinspect_sole took, keeping the shared one.
SELECT pg_advisory_unlock(hashtextextended('writeamp:pg_walinspect', 0))

-- name: measuring_share
-- Held shared by every writeamp run for its whole measurement, so another
-- run does not CHECKPOINT meanwhile: a checkpoint lets the server remove the
-- WAL of an open window before pg_walinspect has read it.
SELECT pg_advisory_lock_shared(hashtextextended('writeamp:measuring', 0))

-- name: others_measuring
-- Sessions holding measuring_share, in any database of the cluster
-- (pg_locks shows them all; a bigint advisory key is classid = high 32
-- bits, objid = low 32 bits, objsubid = 1). Readable without privileges.
SELECT count(*) FROM pg_locks l, (SELECT hashtextextended('writeamp:measuring', 0) AS k) x
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.classid = ((x.k >> 32) & 4294967295)::oid AND l.objid = (x.k & 4294967295)::oid
