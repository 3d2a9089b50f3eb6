-- Oracle collectors: one block per source view. :1 and :2 are the same
-- value, the owners in scope as ",OWNER1,OWNER2," (NULL = every schema not
-- maintained by Oracle); bound twice because go-ora binds by position.

-- name: snapshot_read_only
-- A real read-only transaction: the observer cannot write, and the catalog
-- reads are consistent as of the snapshot's start.
SET TRANSACTION READ ONLY

-- name: all_objects
-- Tables, and the indexes on tables in scope, by the table's owner
-- (ALL_INDEXES.TABLE_OWNER): an index may live in another schema than its
-- table. LOB indexes (INDEX_TYPE 'LOB', SYS_IL...) come back too and are left
-- out in Go: they index a CLOB's chunks, not a workload key
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/ALL_INDEXES.html).
SELECT o.owner, o.object_name, o.object_type, i.table_owner, i.table_name, i.index_type, i.uniqueness, o.data_object_id
FROM all_objects o
LEFT JOIN all_indexes i ON i.owner = o.owner AND i.index_name = o.object_name AND o.object_type = 'INDEX'
WHERE o.object_type IN ('TABLE', 'INDEX')
  AND NVL(i.table_owner, o.owner) NOT IN (SELECT username FROM all_users WHERE oracle_maintained = 'Y')
  AND (:1 IS NULL OR INSTR(:2, ',' || NVL(i.table_owner, o.owner) || ',') > 0)
ORDER BY o.owner, o.object_type DESC, o.object_name

-- name: v_segstat_name
-- Which segment statistics Oracle samples (SAMPLED = 'YES', e.g. 'logical
-- reads' and 'db block changes'): those are estimates, not counts
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SEGSTAT_NAME.html).
SELECT name, sampled FROM v$segstat_name

-- name: v_segment_statistics
-- Per segment (partitions are separate rows, summed per object in Go);
-- DATAOBJ# changes on TRUNCATE/MOVE/REBUILD, when the counters restart.
-- Scoped by the table's owner, as all_objects is
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SEGMENT_STATISTICS.html).
SELECT s.owner, s.object_name, s.object_type, s.subobject_name, s.dataobj#, s.statistic_name, s.value,
       i.table_owner, i.table_name, i.index_type
FROM v$segment_statistics s
LEFT JOIN all_indexes i ON i.owner = s.owner AND i.index_name = s.object_name AND s.object_type LIKE 'INDEX%'
WHERE s.statistic_name IN ('db block changes', 'physical writes', 'buffer busy waits', 'ITL waits', 'row lock waits')
  AND s.object_type IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION', 'INDEX', 'INDEX PARTITION', 'INDEX SUBPARTITION')
  AND (:1 IS NULL OR INSTR(:2, ',' || NVL(i.table_owner, s.owner) || ',') > 0)
ORDER BY s.owner, s.object_name, s.subobject_name, s.statistic_name

-- name: v_sysstat
-- The instance's figures: used outside a CDB and in its root
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SYSSTAT.html).
SELECT name, value FROM v$sysstat
WHERE name IN ('redo size', 'redo entries', 'redo wastage', 'undo change vector size', 'db block changes',
               'leaf node splits', 'leaf node 90-10 splits', 'branch node splits')
ORDER BY name

-- name: v_con_sysstat
-- Connected to a PDB (CON_ID > 1): "When queried from a PDB, statistics in
-- that PDB are returned" (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-CON_SYSSTAT.html).
SELECT name, value FROM v$con_sysstat
WHERE name IN ('redo size', 'redo entries', 'redo wastage', 'undo change vector size', 'db block changes',
               'leaf node splits', 'leaf node 90-10 splits', 'branch node splits')
ORDER BY name

-- name: v_system_event
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SYSTEM_EVENT.html
SELECT event, total_waits, time_waited_micro FROM v$system_event
WHERE event IN ('enq: TX - index contention', 'buffer busy waits', 'log file sync', 'log file parallel write')
ORDER BY event

-- name: v_con_system_event
-- A PDB's own waits (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-CON_SYSTEM_EVENT.html).
SELECT event, total_waits, time_waited_micro FROM v$con_system_event
WHERE event IN ('enq: TX - index contention', 'buffer busy waits', 'log file sync', 'log file parallel write')
ORDER BY event

-- name: v_sqlstats
-- Per SQL_ID and plan: https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SQLSTATS.html
-- (EXECUTIONS, ROWS_PROCESSED: rows the statement returned or changed,
-- PHYSICAL_WRITE_BYTES, ELAPSED_TIME in microseconds; SQL_TEXT is the first
-- 1,000 characters). It outlives the cursors aged out of the shared pool;
-- in a PDB it holds that container's statements.
SELECT SQL_ID || '/' || PLAN_HASH_VALUE, SQL_TEXT, EXECUTIONS, ROWS_PROCESSED, PHYSICAL_WRITE_BYTES, ELAPSED_TIME
FROM V$SQLSTATS
