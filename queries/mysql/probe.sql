-- MySQL / MariaDB: what the server is and what this login may read.
-- VersionNum: MySQL major*10000+minor*100+patch (8.0.30 = 80030); MariaDB the
-- same plus 1000000 (10.11.19 = 1101119), so "-- max_version: 1000000" gates a
-- block to MySQL and "-- min_version: 1000000" to MariaDB.

-- name: probe
SELECT VERSION(), @@version_comment, DATABASE(), CURRENT_USER(), @@hostname, @@port, @@server_id,
       @@log_bin, @@read_only, @@performance_schema

-- name: status_names
-- Which of the names that differ by flavor and version this server has; no privilege needed.
SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_lsn_current', 'Innodb_redo_log_current_lsn', 'Innodb_rows_inserted', 'Binlog_bytes_written', 'Innodb_history_list_length')

-- name: show_grants
-- The current user's grants including its active roles' (which
-- INFORMATION_SCHEMA.USER_PRIVILEGES leaves out), to tell "the monitors are
-- off" from "this login may not turn them on".
SHOW GRANTS

-- name: index_stats_probe
SELECT COUNT(*) FROM mysql.innodb_index_stats WHERE 1 = 0

-- name: table_io_probe
-- Whether performance_schema counts table I/O: its instrument and the
-- consumer its summaries need.
-- https://dev.mysql.com/doc/refman/8.0/en/performance-schema-table-wait-summary-tables.html
SELECT COALESCE((SELECT ENABLED = 'YES' FROM performance_schema.setup_instruments WHERE NAME = 'wait/io/table/sql/handler'), 0)
   AND COALESCE((SELECT ENABLED = 'YES' FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation'), 0)

-- name: userstat_probe
-- MariaDB's User Statistics switch (https://mariadb.com/kb/en/user-statistics/).
-- min_version: 1000000
SHOW GLOBAL VARIABLES LIKE 'userstat'
