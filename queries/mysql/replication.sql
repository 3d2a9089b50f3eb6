-- MySQL / MariaDB replication: what a replica received and applied, which
-- replicas a primary ships its binary log to, and semi-synchronous waits.

-- name: replica_status
-- One row per replication connection (multi-source: per Connection_name).
-- Columns are read by name: their order differs by version, and MySQL 8.0.22
-- renamed Master to Source (Read_Source_Log_Pos, Exec_Source_Log_Pos).
-- Needs REPLICA MONITOR (10.5.9+), REPLICATION SLAVE ADMIN (10.5.2+), or
-- SUPER / REPLICATION CLIENT before; no rows on a server that replicates from
-- nobody. https://mariadb.com/kb/en/show-replica-status/
-- min_version: 1000000
SHOW ALL SLAVES STATUS

-- name: replica_status
-- MySQL 8.0.22+ (REPLICATION CLIENT):
-- https://dev.mysql.com/doc/refman/8.0/en/show-replica-status.html
-- min_version: 80022
-- max_version: 1000000
SHOW REPLICA STATUS

-- name: replica_status
-- MySQL before 8.0.22: https://dev.mysql.com/doc/refman/8.0/en/show-slave-status.html
-- max_version: 80022
SHOW SLAVE STATUS

-- name: replica_hosts
-- The replicas registered with this primary (one per connected replica's
-- binlog dump). Needs REPLICATION MASTER ADMIN (MariaDB 10.5.2+; REPLICATION
-- SLAVE before). Columns Server_id, Host, Port, Master_id.
-- https://mariadb.com/kb/en/show-replica-hosts/
-- min_version: 1000000
SHOW SLAVE HOSTS

-- name: replica_hosts
-- MySQL 8.0.22+ (REPLICATION SLAVE): Server_Id, Host, Port, Source_Id, Replica_UUID.
-- https://dev.mysql.com/doc/refman/8.0/en/show-replicas.html
-- min_version: 80022
-- max_version: 1000000
SHOW REPLICAS

-- name: replica_hosts
-- max_version: 80022
SHOW SLAVE HOSTS

-- name: gtid_slave_pos_rows
-- The rows of MariaDB's replication position table: the applier inserts one
-- row per transaction it applies and deletes old rows in batches
-- (gtid_cleanup_batch_size), so the Handler_write/Handler_delete counts of a
-- replica include them. https://mariadb.com/kb/en/mysqlgtid_slave_pos-table/
-- min_version: 1000000
SELECT COUNT(*) FROM mysql.gtid_slave_pos

-- name: replica_catchup
-- The same statement as replica_status, read while waiting for the replica
-- to apply what it received.
-- min_version: 1000000
SHOW ALL SLAVES STATUS

-- name: replica_catchup
-- min_version: 80022
-- max_version: 1000000
SHOW REPLICA STATUS

-- name: replica_catchup
-- max_version: 80022
SHOW SLAVE STATUS

-- name: semisync_status
-- Semi-synchronous replication on the primary: transactions acknowledged by
-- a replica (yes_tx) or committed without (no_tx, after
-- rpl_semi_sync_master_timeout), waits and their total time in microseconds.
-- Built into MariaDB 10.3+ (https://mariadb.com/kb/en/semisynchronous-replication/);
-- MySQL 8.0.26+'s plugin says source (https://dev.mysql.com/doc/refman/8.0/en/replication-semisync-monitoring.html).
SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_master_yes_tx', 'Rpl_semi_sync_master_no_tx', 'Rpl_semi_sync_master_tx_waits', 'Rpl_semi_sync_master_tx_wait_time',
  'Rpl_semi_sync_source_yes_tx', 'Rpl_semi_sync_source_no_tx', 'Rpl_semi_sync_source_tx_waits', 'Rpl_semi_sync_source_tx_wait_time')

-- name: ledger_off_binlog
-- writeamp's ledger stays off the binary log, so it never replicates: needs
-- BINLOG ADMIN (MariaDB 10.5.2+, MDEV-21957) or SUPER; MySQL
-- SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN.
-- https://mariadb.com/kb/en/set-sql_log_bin/
SET SESSION sql_log_bin = 0

-- name: ledger_on_binlog
SET SESSION sql_log_bin = 1

-- name: session_log_bin
SELECT @@session.sql_log_bin

-- name: binlog_bytes_written
-- The binary log bytes written so far (MariaDB, whole server), read around
-- writeamp's ledger statements when they cannot stay off the binlog.
-- min_version: 1000000
SHOW GLOBAL STATUS LIKE 'Binlog_bytes_written'
