-- PostgreSQL collectors: one block per source view, gated by version.
-- $1 is the list of schemas in scope (NULL = every user schema).

-- name: wal_lsn
SELECT pg_current_wal_insert_lsn()::text,
       pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::numeric::text

-- name: pg_class
-- relfilenode is read from pg_class and only asked of pg_relation_filenode()
-- where it is 0 (mapped catalogs, relations without storage): the function
-- costs about 5 µs a call, a twentieth of a second at 10,000 indexes. No
-- ORDER BY: a sort of 10,000 rows spills to disk at the default work_mem.
-- An index's table is given by oid (an index lives in its table's schema, so
-- the table is a row of the same result) and a table's TOAST relations are
-- looked up only for tables that have one, a partition's parent only for
-- partitions: joining pg_class three more times cost a third of the query at
-- 10,000 indexes. Partitions are read whatever their schema, so a scope that
-- names their partitioned table (in another schema) holds them too.
SELECT n.nspname, c.relname, c.relkind::text, coalesce(i.indrelid::bigint, 0),
       (CASE WHEN c.relfilenode <> 0 THEN c.relfilenode ELSE coalesce(pg_relation_filenode(c.oid), 0) END)::bigint, c.oid::bigint,
       coalesce(am.amname, ''), coalesce(i.indpred IS NOT NULL, false), coalesce(i.indisunique, false),
       CASE WHEN c.reltoastrelid <> 0 AND c.relkind IN ('r', 'm') THEN c.reltoastrelid::bigint ELSE 0 END,
       CASE WHEN c.reltoastrelid <> 0 AND c.relkind IN ('r', 'm')
            THEN coalesce((SELECT tt.relfilenode::bigint FROM pg_class tt WHERE tt.oid = c.reltoastrelid), 0) ELSE 0 END,
       CASE WHEN c.reltoastrelid <> 0 AND c.relkind IN ('r', 'm')
            THEN coalesce((SELECT tix.indexrelid::bigint FROM pg_index tix WHERE tix.indrelid = c.reltoastrelid LIMIT 1), 0) ELSE 0 END,
       CASE WHEN c.reltoastrelid <> 0 AND c.relkind IN ('r', 'm')
            THEN coalesce((SELECT ti.relfilenode::bigint FROM pg_index tix JOIN pg_class ti ON ti.oid = tix.indexrelid
                           WHERE tix.indrelid = c.reltoastrelid LIMIT 1), 0) ELSE 0 END,
       CASE WHEN c.relispartition
            THEN coalesce((SELECT h.inhparent::bigint FROM pg_inherits h WHERE h.inhrelid = c.oid LIMIT 1), 0) ELSE 0 END
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indexrelid = c.oid
LEFT JOIN pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r', 'i', 'm', 'p', 'I')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
  AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]) OR c.relispartition)

-- name: relation_sizes
-- Sizes and index definitions of the relations in scope, read apart from
-- pg_class: a size costs a file-system call and a definition a deparse
-- (about 25-30 µs each), so a snapshot reads them only for a bounded set.
SELECT r, pg_relation_size(r::oid)::bigint, coalesce(pg_get_indexdef(r::oid), '')
FROM unnest($1::bigint[]) r
WHERE EXISTS (SELECT 1 FROM pg_class WHERE oid = r::oid)

-- name: pg_stat_relations
-- The per-relation functions of four views (system_views.sql), read over
-- pg_class by oid alone, one row per table or index: the catalog has the
-- names, and reading them again for each view was most of what a snapshot of
-- 10,000 indexes read (the views' own joins cost more than their functions).
-- A column is NULL where its view has no such row:
--   pg_stat_user_tables (tables r, m, p; 13's view omits p, whose functions
--     read 0 there): n_tup_ins, n_tup_upd, n_tup_hot_upd,
--     n_tup_del, n_tup_newpage_upd (16+), autovacuum_count, autoanalyze_count, vacuum_count;
--   pg_stat_user_indexes (indexes of r and m: i; a partitioned index I has no
--     row there, nor any statistics): idx_scan, idx_tup_read, idx_tup_fetch;
--     for tables r, m and p the same two functions are pg_stat_user_tables'
--     seq_scan and seq_tup_read (the view's definition, every major);
--   pg_statio_user_tables/_indexes (heap r, m and their indexes i; no partitioned
--     relations): blks_hit, and blks_read = fetched - hit (blocks_fetched counts
--     every request of a shared buffer, blocks_hit those already in it).
-- max_version: 160000
SELECT c.oid::bigint, c.relkind::text,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_inserted(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_updated(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_hot_updated(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_deleted(c.oid) END,
       NULL::bigint,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_autovacuum_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_autoanalyze_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_vacuum_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p', 'i') THEN pg_stat_get_numscans(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p', 'i') THEN pg_stat_get_tuples_returned(c.oid) END,
       CASE WHEN c.relkind = 'i' THEN pg_stat_get_tuples_fetched(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_stat_get_blocks_hit(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid) END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm', 'p', 'i', 'I')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
  AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))

-- name: pg_stat_relations
-- min_version: 160000
SELECT c.oid::bigint, c.relkind::text,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_inserted(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_updated(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_hot_updated(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_deleted(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_tuples_newpage_updated(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_autovacuum_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_autoanalyze_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p') THEN pg_stat_get_vacuum_count(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p', 'i') THEN pg_stat_get_numscans(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'p', 'i') THEN pg_stat_get_tuples_returned(c.oid) END,
       CASE WHEN c.relkind = 'i' THEN pg_stat_get_tuples_fetched(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_stat_get_blocks_hit(c.oid) END,
       CASE WHEN c.relkind IN ('r', 'm', 'i') THEN pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid) END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm', 'p', 'i', 'I')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
  AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))

-- name: stats_reset
-- The database's stats_reset: pg_stat_reset() and
-- pg_stat_reset_single_table_counters() both set it (13 through 18), and a
-- relation's counters carry no reset time of their own.
SELECT coalesce(stats_reset::text, '') FROM pg_stat_database WHERE datname = current_database()

-- name: pg_stat_wal
-- min_version: 140000
SELECT wal_records, wal_fpi, wal_bytes::bigint, wal_buffers_full, coalesce(stats_reset::text, '')
FROM pg_stat_wal

-- name: pg_stat_io
-- Shared-buffer I/O of relations (18 adds object 'wal': left out), every
-- backend type summed: writes are dirty pages written out, by whoever
-- evicted or checkpointed them; extends are new pages. Cluster-wide.
-- min_version: 160000
SELECT coalesce(sum(writes), 0)::bigint, coalesce(sum(writes) FILTER (WHERE backend_type = 'client backend'), 0)::bigint,
       coalesce(sum(extends), 0)::bigint, coalesce(sum(hits), 0)::bigint, coalesce(sum(reads), 0)::bigint,
       coalesce(max(stats_reset)::text, '')
FROM pg_stat_io WHERE object = 'relation' AND context <> 'bulkread'

-- name: pg_stat_database
-- temp_bytes: what sorts and hashes spilled to temporary files (a CREATE
-- INDEX larger than maintenance_work_mem writes its sort there).
-- https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-DATABASE-VIEW
SELECT xact_commit, xact_rollback, deadlocks, temp_bytes, coalesce(stats_reset::text, '')
FROM pg_stat_database WHERE datname = current_database()

-- name: pg_walinspect_groups
-- The window's records (pg_walinspect, 15+) per transaction and relation of
-- their first block, with each group's record and byte counts and its leaf
-- inserts, leaf splits and heap updates to a new page: what pg_walinspect
-- reads, included there ({{block:...}}).
-- $1 start LSN, $2 end LSN.
-- min_version: 150000
SELECT xid, dboid, relfilenode, count(*) AS n, sum(record_length)::bigint AS len, sum(fpi_length)::bigint AS fpi,
       count(*) FILTER (WHERE fpi_length > 0) AS fpis, count(*) FILTER (WHERE leaf_insert) AS leaf,
       count(*) FILTER (WHERE leaf_split) AS split, count(*) FILTER (WHERE newpage_update) AS newpage
FROM (SELECT xid::text::bigint AS xid, record_length, fpi_length,
             coalesce(nullif(split_part(rel, '/', 2), '')::bigint, 0) AS dboid,
             coalesce(nullif(split_part(rel, '/', 3), '')::bigint, 0) AS relfilenode,
             resource_manager = 'Btree' AND (record_type IN ('INSERT_LEAF', 'INSERT_POST')
               OR (record_type IN ('SPLIT_L', 'SPLIT_R') AND description LIKE ANY (ARRAY['level 0,%', 'level: 0,%']))) AS leaf_insert,
             resource_manager = 'Btree' AND record_type IN ('SPLIT_L', 'SPLIT_R') AND description LIKE ANY (ARRAY['level 0,%', 'level: 0,%']) AS leaf_split,
             resource_manager = 'Heap' AND record_type IN ('UPDATE', 'UPDATE+INIT') AND block_ref LIKE '%blkref #1:%' AS newpage_update
      FROM (SELECT *, split_part(split_part(block_ref, 'blkref #0: rel ', 2), ' ', 1) AS rel
            FROM {{walinspect}}.pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)) r) c
GROUP BY 1, 2, 3

-- name: pg_walinspect
-- WAL records between two LSNs, grouped by the relation of each record's first
-- block (block 0, as counters.md says), with B-tree leaf inserts counted as
-- INSERT_LEAF + INSERT_POST + leaf-level (level 0) splits, which carry the new tuple.
-- A heap UPDATE whose record references a second block moved the row to
-- another page: non-HOT because it did not fit, not because a key changed.
-- Each record's transaction is classed: 'scope' wrote a measured relation,
-- 'other' wrote only other relations (its commit record belongs with them),
-- 'none' wrote no relation at all (checkpoints, running-xacts, WAL switches).
-- These are the 'rel' rows (xid 0). With $5 (the built-in workload's split
-- by operation) the same read also returns the in-scope records per
-- transaction, the 'xact' rows: records whose first block is a measured
-- relation, and the records of no relation (commits) of transactions that
-- wrote one, per xid and relation. g, read three times, is materialised
-- once, so the window is read once: the split was a second query, which
-- read it again. Without $5 that branch is not run (a one-time filter).
-- $1 start LSN, $2 end LSN, $3 database oid, $4 relfilenodes in scope,
-- $5 whether to split by transaction.
-- The relation of block 0 is parsed out of block_ref ("blkref #0: rel
-- 1663/5/16384 fork main blk 7 blkref #1: ...", the same text on 15 to 18)
-- with split_part: regexp_match cost ~11 µs a record, 12 times
-- pg_get_wal_records_info's own read (9.8 s against 0.78 s for 875,000
-- records on 15), and 16's join with pg_get_wal_block_info sorted every
-- block. The records are grouped by transaction and relation in one pass,
-- and the transactions classed from those groups: classing them from the
-- records took three passes over a materialised copy of every record.
-- A leaf split's description is "level 0, firstrightoff ..." on 15 and
-- "level: 0, firstrightoff: ..." from 16 on (nbtdesc.c gained the colons);
-- each matches only its own major's text, so one query serves 15 to 18.
-- min_version: 150000
WITH g AS (
{{block:pg_walinspect_groups}}
), x AS (
  SELECT xid, bool_or(dboid = $3 AND relfilenode = ANY($4::bigint[])) AS scope,
         bool_or(relfilenode <> 0 AND NOT (dboid = $3 AND relfilenode = ANY($4::bigint[]))) AS other
  FROM g WHERE xid <> 0 GROUP BY xid
)
SELECT 'rel' AS kind, 0::bigint AS xid, dboid, relfilenode, CASE WHEN x.scope THEN 'scope' WHEN x.other THEN 'other' ELSE 'none' END AS xact,
       sum(n)::bigint, sum(len)::bigint, sum(fpi)::bigint, sum(fpis)::bigint, sum(leaf)::bigint, sum(split)::bigint, sum(newpage)::bigint
FROM g LEFT JOIN x USING (xid)
GROUP BY 3, 4, 5
UNION ALL
SELECT 'xact', xid, dboid, relfilenode, 'scope', n, len, fpi, fpis, leaf, split, newpage
FROM g
WHERE $5::boolean AND ((dboid = $3 AND relfilenode = ANY($4::bigint[])) OR (relfilenode = 0 AND xid IN (SELECT xid FROM x WHERE scope)))

-- name: pg_stat_checkpointer
-- Checkpoints up to 16 live in pg_stat_bgwriter; checkpoints_timed also
-- counts scheduled checkpoints skipped on an idle server.
-- max_version: 170000
-- source: pg_stat_bgwriter.checkpoints_timed + checkpoints_req
-- exactness: approx
-- note: scheduled checkpoints skipped on an idle server count too
SELECT checkpoints_timed + checkpoints_req, coalesce(stats_reset::text, '')
FROM pg_stat_bgwriter

-- name: pg_stat_checkpointer
-- 17 moved them to pg_stat_checkpointer; num_timed counts skipped ones too.
-- min_version: 170000
-- max_version: 180000
-- source: pg_stat_checkpointer.num_timed + num_requested
-- exactness: approx
-- note: scheduled checkpoints skipped on an idle server count too
SELECT num_timed + num_requested, coalesce(stats_reset::text, '')
FROM pg_stat_checkpointer

-- name: pg_stat_checkpointer
-- 18 counts the checkpoints actually performed (num_done).
-- min_version: 180000
-- source: pg_stat_checkpointer.num_done
-- exactness: exact
SELECT num_done, coalesce(stats_reset::text, '')
FROM pg_stat_checkpointer

-- name: relation_of_filenode
-- The relation a relfilenode of this database belongs to now (0: default tablespace).
SELECT coalesce(pg_filenode_relation(0, $1::oid)::regclass::text, '')

-- name: pg_walinspect_pages
-- Distinct main-fork blocks of each scoped relation that the window's
-- records changed (any block reference, not only the first).
-- PG 15: every "blkref #N: rel T/D/R fork F blk B" of block_ref.
-- min_version: 150000
-- max_version: 160000
-- (split_part, not regexp_matches: the regular expression took 45 s for
-- 875,000 records, the string functions 6 s. string_to_table in the select
-- list, not a lateral unnest(string_to_array()): a function scan joined to
-- a set-returning call per record took 2.9 s of such a window, 2.25 s so.)
SELECT rel, count(DISTINCT blk)
FROM (SELECT split_part(split_part(b, ' ', 3), '/', 2)::bigint AS db, split_part(split_part(b, ' ', 3), '/', 3)::bigint AS rel,
             split_part(b, ' ', 7)::bigint AS blk
      FROM (SELECT string_to_table(block_ref, 'blkref #') AS b
            FROM {{walinspect}}.pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)) r
      WHERE b LIKE '%: rel % fork main blk %') x
WHERE db = $3 AND rel = ANY($4::bigint[])
GROUP BY 1

-- name: pg_walinspect_pages
-- PG 16+: pg_get_wal_block_info's columns.
-- min_version: 160000
SELECT relfilenode::bigint, count(DISTINCT relblocknumber)
FROM {{walinspect}}.pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false)
WHERE reldatabase = $3 AND relfilenode::bigint = ANY($4::bigint[]) AND relforknumber = 0
GROUP BY 1

-- name: wal_file_name
-- The segment file of an LSN (its first 8 hex digits are the timeline).
SELECT pg_walfile_name($1::pg_lsn)

-- name: read_wal_segment
-- Bytes of a segment for writeamp's WAL decoder: superuser or pg_read_server_files.
SELECT pg_read_binary_file($1, $2, $3)

-- name: warm_reader_allocator
-- Run once on a connection before it reads a long window with
-- read_wal_segment (the same privileges). Each read holds three buffers of
-- about a chunk (the file's bytes, bytea_send's copy, the DataRow message)
-- and frees them at its end. glibc's malloc (mallopt(3), M_MMAP_THRESHOLD and
-- M_TRIM_THRESHOLD) serves a fresh backend's large blocks with mmap, then
-- raises its mmap threshold to the largest block freed and its heap-trim
-- threshold to twice that: about 4 MiB for 2 MiB chunks, less than the 6 MiB
-- a read frees, so every read gave its heap back and faulted it in again,
-- zeroed (5.5 ms per chunk against 2.4 once the thresholds were higher).
-- pg_read_binary_file allocates the length asked for before it reads, so
-- asking 8 MiB of PG_VERSION (a few bytes, in every data directory) frees
-- an 8 MiB block that was barely touched: the thresholds go to 8 and 16
-- MiB, under glibc's 32 MiB ceiling, and the heap is kept. Elsewhere it
-- costs a round trip.
SELECT octet_length(pg_read_binary_file('PG_VERSION', 0, $1))

-- name: pg_stat_activity_sample
-- What the measured database's ($3) sessions are doing at this instant: its
-- active client backends other than the sampler's own, with their pid and,
-- when asked ($2), their statement. Which ones: all of them when the caller
-- tells the workload's apart by pid ($4); else those of one application_name
-- ($1), or with $1 = '' every session but writeamp's own (they carry the
-- sampler's application_name). A NULL wait_event of an active session means
-- it is on CPU. The sampler runs this from another database of the cluster,
-- one statement at a time outside any transaction, so its snapshots never
-- count in the measured database's xmin horizon. PUBLIC may read wait_event
-- of every session; query text needs pg_read_all_stats for other roles'
-- sessions (it reads as '<insufficient privilege>').
-- state and wait_event of one row are not read at one instant: state comes
-- from the copy of the backends' status taken when the view is first read,
-- wait_event from the live process a moment later, so a session that had just
-- finished its statement shows 'active' with Client.ClientRead (waiting for
-- its next command: idle). Those rows are left out of active time.
SELECT pid::text, coalesce(wait_event_type, ''), coalesce(wait_event, ''), CASE WHEN $2 THEN coalesce(query, '') ELSE '' END
FROM pg_stat_activity
WHERE datname = $3 AND pid <> pg_backend_pid() AND state = 'active'
  AND wait_event IS DISTINCT FROM 'ClientRead'
  AND backend_type = 'client backend'
  AND ($4 OR CASE WHEN $1 = '' THEN application_name IS DISTINCT FROM current_setting('application_name') ELSE application_name = $1 END)

-- name: pg_wait_sampling_probe
-- Whether the pg_wait_sampling extension is created where the wait sampler
-- connects (its profile view on the search path), its version, how often its
-- collector samples (ms) and whether it keeps the profile per pid. Custom
-- settings read '' when the library is not loaded. Nothing is read from its
-- shared memory here: a created but not preloaded extension fails only when
-- its profile is read, and the sampler then falls back to pg_stat_activity.
-- The database is named in the note of a library loaded but not created here.
-- https://github.com/postgrespro/pg_wait_sampling (README: views, GUCs)
SELECT to_regclass('pg_wait_sampling_profile') IS NOT NULL,
       coalesce((SELECT extversion FROM pg_extension WHERE extname = 'pg_wait_sampling'), ''),
       coalesce(current_setting('pg_wait_sampling.profile_period', true), ''),
       coalesce(current_setting('pg_wait_sampling.profile_pid', true), ''),
       current_database()

-- name: pg_wait_sampling_profile
-- pg_wait_sampling's cumulative profile: samples per pid and wait event,
-- taken by its collector every profile_period ms from every process's
-- PGPROC (no query, no snapshot), summed over queryid (kept apart when
-- profile_queries is on). A NULL event_type is a process on CPU (1.1.5+
-- with sample_cpu; 1.1.4 records none). Read at the window's start and end
-- and diffed: never reset, the profile is the server's, not writeamp's.
SELECT pid::text, coalesce(event_type, ''), coalesce(event, ''), sum(count)::bigint
FROM pg_wait_sampling_profile
GROUP BY 1, 2, 3
