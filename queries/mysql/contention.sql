-- MySQL / MariaDB: where writers wait (a sampler of the workload's sessions
-- and performance_schema's wait summary), the pages each index had modified
-- in the window, and InnoDB's change buffer.

-- name: processlist_sample
-- MariaDB. Every active session but the sampler's own, one sample: its
-- processlist state, its statement when asked (?1), and the statement's
-- QUERY_ID (https://mariadb.com/kb/en/information-schema-processlist-table/).
-- ?2/?3: the program_name connection attribute of the workload's sessions
-- (performance_schema.session_connect_attrs), '' for every session. Reads no
-- InnoDB table and starts no transaction: it writes no redo.
-- min_version: 1000000
SELECT p.ID, COALESCE(p.STATE, ''), CASE WHEN ? THEN COALESCE(p.INFO, '') ELSE '' END, COALESCE(p.INFO, ''), p.QUERY_ID
FROM information_schema.PROCESSLIST p
WHERE p.ID <> CONNECTION_ID() AND p.COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID', 'Killed')
  AND (? = '' OR p.ID IN (SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs
                          WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = ?))

-- name: processlist_sample
-- MySQL 8: no QUERY_ID column; the statement text tells one statement from
-- the next (https://dev.mysql.com/doc/refman/8.0/en/information-schema-processlist-table.html).
-- max_version: 1000000
SELECT p.ID, COALESCE(p.STATE, ''), CASE WHEN ? THEN COALESCE(p.INFO, '') ELSE '' END, COALESCE(p.INFO, ''), 0
FROM information_schema.PROCESSLIST p
WHERE p.ID <> CONNECTION_ID() AND p.COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID', 'Killed')
  AND (? = '' OR p.ID IN (SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs
                          WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = ?))

-- name: innodb_lock_waits_sample
-- MariaDB. The sessions InnoDB has waiting for a lock (INNODB_TRX.trx_state
-- 'LOCK WAIT'), the statement they wait in, and the lock's type
-- (INNODB_LOCKS.lock_type RECORD or TABLE)
-- (https://mariadb.com/kb/en/information-schema-innodb_trx-table/,
-- https://mariadb.com/kb/en/information-schema-innodb_locks-table/; PROCESS).
-- InnoDB refreshes the copy these views show only when it was not read in
-- the last 100 ms, so the sampler reads them less often than that.
-- min_version: 1000000
SELECT t.trx_mysql_thread_id, COALESCE(t.trx_query, ''), COALESCE(l.lock_type, '')
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id
WHERE t.trx_state = 'LOCK WAIT'

-- name: innodb_lock_waits_sample
-- MySQL 8: INNODB_LOCKS is gone; the requested lock's type is in
-- performance_schema.data_locks, joined on ENGINE_LOCK_ID =
-- INNODB_TRX.TRX_REQUESTED_LOCK_ID as the manual says
-- (https://dev.mysql.com/doc/refman/8.0/en/information-schema-innodb-trx-table.html,
-- https://dev.mysql.com/doc/refman/8.0/en/performance-schema-data-locks-table.html);
-- with performance_schema off the type is unknown ('').
-- max_version: 1000000
SELECT t.trx_mysql_thread_id, COALESCE(t.trx_query, ''), COALESCE(l.LOCK_TYPE, '')
FROM information_schema.INNODB_TRX t
LEFT JOIN performance_schema.data_locks l ON l.ENGINE = 'INNODB' AND l.ENGINE_LOCK_ID = t.trx_requested_lock_id
WHERE t.trx_state = 'LOCK WAIT'

-- name: connect_attrs_self
-- Whether this session's program_name attribute is visible: the sampler can
-- then tell the workload's sessions from others (performance_schema on).
SELECT COUNT(*) FROM performance_schema.session_connect_attrs
WHERE PROCESSLIST_ID = CONNECTION_ID() AND ATTR_NAME = 'program_name' AND ATTR_VALUE = ?

-- name: events_waits_summary_global_by_event_name
-- performance_schema's wait summary for InnoDB's mutexes, rw-locks and
-- sx-locks (index_tree_rw_lock is the index latch), InnoDB file I/O, and the
-- SQL layer's table and metadata locks, with whether each instrument is on
-- and timed (https://mariadb.com/kb/en/performance-schema-events_waits_summary_global_by_event_name-table/,
-- https://dev.mysql.com/doc/refman/8.0/en/performance-schema-wait-summary-tables.html).
-- COUNT_STAR counts every acquisition, contended or not; SUM_TIMER_WAIT is
-- picoseconds. The table is filled only with the global_instrumentation
-- consumer on (read separately). InnoDB row locks have no instrument here.
SELECT e.EVENT_NAME, e.COUNT_STAR, e.SUM_TIMER_WAIT, i.ENABLED = 'YES', i.TIMED = 'YES'
FROM performance_schema.events_waits_summary_global_by_event_name e
JOIN performance_schema.setup_instruments i ON i.NAME = e.EVENT_NAME
WHERE e.EVENT_NAME LIKE 'wait/synch/%/innodb/%' OR e.EVENT_NAME LIKE 'wait/io/file/innodb/%'
   OR e.EVENT_NAME IN ('wait/lock/table/sql/handler', 'wait/lock/metadata/sql/mdl')
ORDER BY e.EVENT_NAME

-- name: performance_schema_on
-- No privilege; a restart is the only way to change it.
SELECT @@performance_schema

-- name: global_instrumentation
SELECT ENABLED = 'YES' FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation'

-- name: innodb_buffer_page_touched
-- Pages of each index in the buffer pool whose page LSN (NEWEST_MODIFICATION,
-- the LSN of the page's latest change, kept when the page is written back)
-- falls in the window's redo LSN range (?1, ?2]: the pages modified in the
-- window that are still in the buffer pool. Needs PROCESS; reading it walks
-- the whole buffer pool
-- (https://mariadb.com/kb/en/information-schema-innodb_buffer_page-table/,
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-innodb-buffer-page-table.html).
-- TABLE_NAME is `schema`.`table` (a partition adds a comment).
SELECT TABLE_NAME, INDEX_NAME, COUNT(*)
FROM information_schema.INNODB_BUFFER_PAGE
WHERE NEWEST_MODIFICATION > ? AND NEWEST_MODIFICATION <= ? AND PAGE_TYPE = 'INDEX'
  AND TABLE_NAME IS NOT NULL AND INDEX_NAME IS NOT NULL
GROUP BY TABLE_NAME, INDEX_NAME

-- name: innodb_change_buffering
-- Which changes InnoDB buffers: none, inserts, deletes, changes, purges, all.
-- MariaDB made none the default in 10.5.15 and 10.6.7 and removed the
-- change buffer in 11.0, where the variable no longer exists (an empty
-- result) (https://mariadb.com/kb/en/innodb-change-buffering/). No privilege.
SHOW GLOBAL VARIABLES LIKE 'innodb_change_buffering'

-- name: innodb_metrics_change_buffer
-- The change buffer's counters (subsystem change_buffer, on by default;
-- PROCESS): merges, the records merged by kind, and its size in pages.
-- max_version: 1000000
SELECT NAME, COUNT, STATUS = 'enabled' FROM information_schema.INNODB_METRICS
WHERE NAME IN ('ibuf_merges', 'ibuf_merges_insert', 'ibuf_merges_delete_mark', 'ibuf_merges_delete', 'ibuf_size')

-- name: innodb_metrics_change_buffer
-- min_version: 1000000
SELECT NAME, COUNT, ENABLED <> 0 FROM information_schema.INNODB_METRICS
WHERE NAME IN ('ibuf_merges', 'ibuf_merges_insert', 'ibuf_merges_delete_mark', 'ibuf_merges_delete', 'ibuf_size')

-- name: global_status_change_buffer
-- MariaDB without PROCESS: the merge counts as status variables (no
-- privilege). Innodb_ibuf_size is not read: on 10.11.19 its upper 32 bits
-- are garbage (8710193676289 where INNODB_METRICS ibuf_size says 1).
SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_ibuf_merges', 'Innodb_ibuf_merged_inserts', 'Innodb_ibuf_merged_delete_marks', 'Innodb_ibuf_merged_deletes')

-- name: connection_id
-- This session's id, as PROCESSLIST.ID shows it.
SELECT CONNECTION_ID()
