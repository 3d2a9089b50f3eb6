-- MySQL / MariaDB collectors: one block per source view, gated by version
-- where the flavors differ (VersionNum >= 1000000 is MariaDB, see probe.sql).
-- Scope arguments: ? twice, the schemas (databases) in scope joined by ","
-- ('' = every user database).

-- name: global_status
-- Needs no privilege. Com_commit counts COMMIT statements, not
-- transactions: an autocommit statement adds nothing to it
-- (https://mariadb.com/kb/en/server-status-variables/#com_commit), so it is
-- reported as commit_statements; transactions come from INNODB_METRICS. Which names exist differs by flavor and version; the
-- collector takes what is there (Probe recorded which).
-- The DDL statement counters (Com_create_*, Com_alter_*, Com_drop_*,
-- Com_rename_table, Com_truncate) say whether a window ran DDL: MariaDB's
-- Binlog_bytes_written then runs ahead of the binary log files.
-- A Galera node's write-set counters come in the same statement (one round
-- trip; a server without wsrep has none of them, or a cluster size of 0):
-- https://mariadb.com/kb/en/galera-cluster-status-variables/ — replicated /
-- replicated_bytes are the write-sets this node sent to the cluster,
-- received / received_bytes those it got from it, local_cert_failures the
-- local transactions certification refused, local_bf_aborts those a
-- replicated one aborted, flow_control_paused_ns the time replication was
-- paused (cumulative, nanoseconds), flow_control_sent / _recv the FC_PAUSE
-- events. All cumulative since the server started.
SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_lsn_current', 'Innodb_redo_log_current_lsn', 'Innodb_os_log_written', 'Innodb_rows_inserted', 'Innodb_rows_updated', 'Innodb_rows_deleted', 'Handler_write', 'Handler_update', 'Handler_delete', 'Innodb_row_lock_waits', 'Innodb_row_lock_time', 'Binlog_bytes_written', 'Com_commit', 'Handler_commit', 'Com_rename_table', 'Com_truncate',
  'wsrep_cluster_size', 'wsrep_replicated', 'wsrep_replicated_bytes', 'wsrep_received', 'wsrep_received_bytes', 'wsrep_local_cert_failures', 'wsrep_local_bf_aborts',
  'wsrep_flow_control_paused_ns', 'wsrep_flow_control_sent', 'wsrep_flow_control_recv')
  OR Variable_name LIKE 'Com\_create\_%' OR Variable_name LIKE 'Com\_alter\_%' OR Variable_name LIKE 'Com\_drop\_%'

-- name: innodb_metrics
-- Needs PROCESS. MySQL names the on/off column STATUS ('enabled'/'disabled').
-- Page splits and merges (module_index) and the transaction ends (module_trx)
-- from which commits are counted.
-- max_version: 1000000
SELECT NAME, COUNT, STATUS = 'enabled' FROM information_schema.INNODB_METRICS
WHERE NAME IN ('index_page_splits', 'index_page_merge_attempts', 'index_page_merge_successful',
               'trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits', 'trx_rollbacks')

-- name: innodb_metrics
-- MariaDB names it ENABLED (1/0).
-- min_version: 1000000
SELECT NAME, COUNT, ENABLED <> 0 FROM information_schema.INNODB_METRICS
WHERE NAME IN ('index_page_splits', 'index_page_merge_attempts', 'index_page_merge_successful',
               'trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits', 'trx_rollbacks')

-- name: file_summary_by_event_name
-- MySQL binlog bytes written (MariaDB has Binlog_bytes_written instead).
-- max_version: 1000000
SELECT SUM_NUMBER_OF_BYTES_WRITE FROM performance_schema.file_summary_by_event_name
WHERE EVENT_NAME = 'wait/io/file/sql/binlog'

-- name: tables
SELECT TABLE_SCHEMA, TABLE_NAME, COALESCE(ENGINE, ''), COALESCE(CAST(CREATE_TIME AS CHAR), '')
FROM information_schema.TABLES
WHERE TABLE_TYPE = 'BASE TABLE'
  AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
ORDER BY 1, 2

-- name: statistics
-- One row per index column; SUB_PART is the prefix length of a prefix index,
-- COLUMN_NAME is NULL for a functional key part (MySQL 8). NULLABLE ('YES'
-- or '') tells whether a table without a PRIMARY KEY has a UNIQUE NOT NULL
-- index InnoDB clusters on, or its hidden GEN_CLUST_INDEX, which this view
-- does not list (https://mariadb.com/kb/en/information-schema-statistics-table/).
SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COALESCE(COLUMN_NAME, ''), COALESCE(SUB_PART, 0), NON_UNIQUE, INDEX_TYPE,
       COALESCE(NULLABLE, '')
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
ORDER BY 1, 2, 3, 4

-- name: innodb_index_stats
-- Persistent statistics: pages per index as of the last recalculation. The
-- system databases are left out as in tables and statistics (mysql.gtid_slave_pos
-- and the statistics tables themselves are InnoDB tables with stats rows).
SELECT database_name, table_name, index_name, stat_name, stat_value, CAST(last_update AS CHAR)
FROM mysql.innodb_index_stats
WHERE stat_name IN ('n_leaf_pages', 'size')
  AND database_name NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
  AND (? = '' OR FIND_IN_SET(database_name, ?) > 0)

-- name: table_io_waits_summary_by_table
-- Rows inserted, updated and deleted per table, as the SQL layer handed them
-- to the storage engine (an UPDATE that leaves a row as it was is not
-- counted). Every base table in scope is listed, 0 where performance_schema
-- has no row for it yet, so a table first touched inside the window counts
-- from zero. CREATE_TIME tells a recreated table apart.
-- https://dev.mysql.com/doc/refman/8.0/en/performance-schema-table-io-waits-summary-by-table-table.html
-- https://mariadb.com/kb/en/performance-schema-table_io_waits_summary_by_table-table/
SELECT t.TABLE_SCHEMA, t.TABLE_NAME, COALESCE(CAST(t.CREATE_TIME AS CHAR), ''),
       COALESCE(w.COUNT_INSERT, 0), COALESCE(w.COUNT_UPDATE, 0), COALESCE(w.COUNT_DELETE, 0)
FROM information_schema.TABLES t
LEFT JOIN performance_schema.table_io_waits_summary_by_table w
  ON w.OBJECT_TYPE = 'TABLE' AND w.OBJECT_SCHEMA = t.TABLE_SCHEMA AND w.OBJECT_NAME = t.TABLE_NAME
WHERE t.TABLE_TYPE = 'BASE TABLE'
  AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
  AND (? = '' OR FIND_IN_SET(t.TABLE_SCHEMA, ?) > 0)

-- name: table_statistics
-- MariaDB's User Statistics (userstat = ON): rows changed per table (10.11
-- counts inserted + updated + deleted as one; an UPDATE that leaves a row as
-- it was is not counted). Listed for every base table in scope, 0 where the
-- table has no row yet.
-- https://mariadb.com/kb/en/information-schema-table_statistics-table/
-- min_version: 1000000
-- max_version: 1110500
SELECT t.TABLE_SCHEMA, t.TABLE_NAME, COALESCE(CAST(t.CREATE_TIME AS CHAR), ''), COALESCE(s.ROWS_CHANGED, 0)
FROM information_schema.TABLES t
LEFT JOIN information_schema.TABLE_STATISTICS s ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME
WHERE t.TABLE_TYPE = 'BASE TABLE'
  AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
  AND (? = '' OR FIND_IN_SET(t.TABLE_SCHEMA, ?) > 0)

-- name: table_statistics
-- MariaDB 11.5 counts the rows inserted, updated and deleted apart (MDEV-33151).
-- min_version: 1110500
SELECT t.TABLE_SCHEMA, t.TABLE_NAME, COALESCE(CAST(t.CREATE_TIME AS CHAR), ''),
       COALESCE(s.ROWS_INSERTED, 0), COALESCE(s.ROWS_UPDATED, 0), COALESCE(s.ROWS_DELETED, 0)
FROM information_schema.TABLES t
LEFT JOIN information_schema.TABLE_STATISTICS s ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME
WHERE t.TABLE_TYPE = 'BASE TABLE'
  AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
  AND (? = '' OR FIND_IN_SET(t.TABLE_SCHEMA, ?) > 0)
