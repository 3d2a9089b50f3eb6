-- PostgreSQL: standbys and the WAL shipped to them.

-- name: wal_replay_lsn
-- A standby's positions: the end of the last WAL record replayed, the end of
-- the WAL received and flushed to its pg_wal ('' with no WAL receiver), and
-- whether replay is paused. Received and replayed are different figures: a
-- paused or lagging standby receives the window's WAL and replays it later.
-- 13 has no pause state: pg_is_wal_replay_paused() says a pause was asked.
-- max_version: 140000
SELECT pg_last_wal_replay_lsn()::text,
       pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::numeric::text,
       coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::numeric::text, ''),
       CASE WHEN pg_is_wal_replay_paused() THEN 'paused' ELSE 'not paused' END

-- name: wal_replay_lsn
-- min_version: 140000
SELECT pg_last_wal_replay_lsn()::text,
       pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::numeric::text,
       coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::numeric::text, ''),
       pg_get_wal_replay_pause_state()

-- name: replay_pause_state
-- Whether replay is paused: a window waits for a paused standby to catch up
-- in vain.
-- max_version: 140000
SELECT CASE WHEN pg_is_wal_replay_paused() THEN 'paused' ELSE 'not paused' END

-- name: replay_pause_state
-- min_version: 140000
SELECT pg_get_wal_replay_pause_state()

-- name: replay_catchup
-- How far replay is behind what this standby received, and what the primary
-- last told the WAL receiver its WAL end was (latest_end_lsn, NULL without
-- pg_read_all_stats or with no receiver): the window ends once replay has
-- reached both and the received position has stopped moving.
SELECT coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0)::bigint,
       coalesce(pg_wal_lsn_diff((SELECT latest_end_lsn FROM pg_stat_wal_receiver), pg_last_wal_replay_lsn()), 0)::bigint,
       coalesce(pg_last_wal_receive_lsn()::text, '')

-- name: replay_lsn_ahead
-- pg_current_wal_flush_lsn() cannot be read during recovery: on a standby the
-- WAL is readable up to what was replayed.
SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), $1::pg_lsn)::bigint

-- name: standby_timeline
-- pg_walfile_name() refuses to run during recovery: the segments a standby
-- streams are named after the timeline it receives, or, with no receiver,
-- the one of its last restartpoint.
SELECT lpad(upper(to_hex(coalesce((SELECT received_tli FROM pg_stat_wal_receiver WHERE received_tli > 0),
                                  (SELECT timeline_id FROM pg_control_checkpoint())))), 8, '0')

-- name: replay_lag_sample
-- Seconds since the last replayed transaction's commit on the primary, and
-- the bytes received but not replayed. The first is only a lag while the
-- primary writes: an idle primary makes it grow without any lag.
SELECT coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), -1)::float8,
       coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0)::float8

-- name: pg_stat_replication
-- One row a connected standby (physical walsenders; logical ones too, named
-- by their application_name). The LSNs are positions: the window's bytes are
-- their differences. Without pg_read_all_stats the LSNs of other users'
-- walsenders are NULL, and read as such.
SELECT coalesce(nullif(application_name, ''), 'pid' || pid::text),
       coalesce(pg_wal_lsn_diff(sent_lsn, '0/0'), -1)::numeric::text,
       coalesce(pg_wal_lsn_diff(write_lsn, '0/0'), -1)::numeric::text,
       coalesce(pg_wal_lsn_diff(flush_lsn, '0/0'), -1)::numeric::text,
       coalesce(pg_wal_lsn_diff(replay_lsn, '0/0'), -1)::numeric::text,
       coalesce(sync_state, ''),
       pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::numeric::text
FROM pg_stat_replication
ORDER BY 1

-- name: replication_tail
-- The bytes each standby has yet to be sent, and to replay, of the WAL
-- written so far: a window on a primary ends once every standby has been
-- sent its tail.
SELECT coalesce(nullif(application_name, ''), 'pid' || pid::text),
       coalesce(pg_wal_lsn_diff(pg_current_wal_flush_lsn(), sent_lsn), -1)::bigint,
       coalesce(pg_wal_lsn_diff(pg_current_wal_flush_lsn(), replay_lsn), -1)::bigint
FROM pg_stat_replication
WHERE state = 'streaming'

-- name: replication_lag_sample
-- The walsender's own lag estimates (10+): how long the last WAL it sent took
-- to be written, flushed and replayed on the standby. NULL once the standby
-- has caught up and nothing new was sent.
SELECT coalesce(nullif(application_name, ''), 'pid' || pid::text),
       coalesce(extract(epoch FROM write_lag) * 1000, -1)::float8,
       coalesce(extract(epoch FROM flush_lag) * 1000, -1)::float8,
       coalesce(extract(epoch FROM replay_lag) * 1000, -1)::float8
FROM pg_stat_replication

-- name: pg_stat_archiver
SELECT archived_count, failed_count, current_setting('archive_mode') FROM pg_stat_archiver

-- name: pg_stat_replication_slots
-- min_version: 140000
-- Logical slots' decoding work (14+): transactions spilled to disk and
-- streamed, and the bytes decoded for the subscriber.
SELECT slot_name, spill_bytes, spill_count, stream_bytes, total_bytes, total_txns
FROM pg_stat_replication_slots
ORDER BY slot_name
