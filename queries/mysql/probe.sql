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
