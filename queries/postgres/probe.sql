-- PostgreSQL: what the server is and what this login may read.

-- name: probe
SELECT current_setting('server_version_num')::int,
       current_setting('server_version'),
       current_database(),
       current_user,
       current_setting('is_superuser') = 'on',
       pg_is_in_recovery(),
       pg_postmaster_start_time()::text,
       (SELECT oid FROM pg_database WHERE datname = current_database())::bigint

-- name: checkpoint_settings
-- How often this server checkpoints, as SHOW prints them (readable by any
-- login): the full-page images a window measures depend on them, and plan
-- names the values it assumed (recorded in the result's server.settings).
SELECT current_setting('checkpoint_timeout'), current_setting('max_wal_size')

-- name: system_identifier
SELECT system_identifier::text FROM pg_control_system()

-- name: can_create_extension
SELECT current_setting('is_superuser') = 'on'

-- name: capabilities
-- What this login may do, in one statement (asked one by one, they were four
-- statements and eight round trips with pgx's statement cache):
-- * WAL files: writeamp decodes the window's WAL itself from the pg_wal
--   segments, read with pg_read_binary_file, whose EXECUTE is revoked from
--   PUBLIC (a relative path inside the data directory needs no more), or from
--   the data directory when it is local (its path needs superuser or
--   pg_read_all_settings). The decoder knows 8 kB WAL pages (wal_block_size,
--   fixed when PostgreSQL is built; 8192 unless built otherwise).
-- * A physical slot needs REPLICATION (or superuser), wal_level replica or
--   logical, and a free entry of max_replication_slots.
-- * CHECKPOINT: superuser, or (15+) pg_checkpoint.
-- * pg_walinspect (15+): available, installed, executable, and its schema.
-- max_version: 150000
SELECT has_function_privilege('pg_read_binary_file(text, bigint, bigint)', 'EXECUTE'),
       pg_size_bytes(current_setting('wal_segment_size')),
       CASE WHEN current_setting('is_superuser') = 'on' OR pg_has_role('pg_read_all_settings', 'MEMBER')
            THEN current_setting('data_directory') ELSE '' END,
       current_setting('wal_block_size')::int,
       coalesce((SELECT rolsuper OR rolreplication FROM pg_roles WHERE rolname = current_user), false),
       current_setting('wal_level') <> 'minimal',
       current_setting('max_replication_slots')::int > (SELECT count(*) FROM pg_replication_slots),
       current_setting('is_superuser') = 'on',
       false, false, false, ''

-- name: capabilities
-- min_version: 150000
SELECT has_function_privilege('pg_read_binary_file(text, bigint, bigint)', 'EXECUTE'),
       pg_size_bytes(current_setting('wal_segment_size')),
       CASE WHEN current_setting('is_superuser') = 'on' OR pg_has_role('pg_read_all_settings', 'MEMBER')
            THEN current_setting('data_directory') ELSE '' END,
       current_setting('wal_block_size')::int,
       coalesce((SELECT rolsuper OR rolreplication FROM pg_roles WHERE rolname = current_user), false),
       current_setting('wal_level') <> 'minimal',
       current_setting('max_replication_slots')::int > (SELECT count(*) FROM pg_replication_slots),
       current_setting('is_superuser') = 'on' OR pg_has_role('pg_checkpoint', 'MEMBER'),
       EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_walinspect'),
       EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_walinspect'),
       coalesce((SELECT has_function_privilege(p.oid, 'EXECUTE')
                 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE p.proname = 'pg_get_wal_records_info' LIMIT 1), false),
       coalesce((SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                 WHERE e.extname = 'pg_walinspect'), '')

-- name: current_xact_id
-- The id of the transaction this statement runs in, as the WAL's records
-- carry it (the low 32 bits of the xid8), appended to each operation of the
-- built-in workload so its window's log can be split by operation. The
-- _if_assigned form assigns no id: a transaction that wrote nothing stays
-- without one and writes no commit record (pg_current_xact_id would give it
-- both). PostgreSQL 13+:
-- https://www.postgresql.org/docs/13/functions-info.html#FUNCTIONS-PG-SNAPSHOT
SELECT pg_current_xact_id_if_assigned()::text::bigint % 4294967296
