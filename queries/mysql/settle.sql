-- MySQL / MariaDB: preparing and settling the server around a measured window.

-- name: history_len_status
-- MariaDB keeps the purge backlog as a status variable: no privilege needed.
-- min_version: 1000000
SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'

-- name: history_len_metrics
-- Needs PROCESS. trx_rseg_history_len is on by default; a disabled one is stale.
-- max_version: 1000000
SELECT COUNT, STATUS = 'enabled' FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'

-- name: history_len_metrics
-- min_version: 1000000
SELECT COUNT, ENABLED <> 0 FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'

-- name: engine_innodb_status
-- Fallback: parse "History list length N" (needs PROCESS).
SHOW ENGINE INNODB STATUS

-- name: monitor_state
-- Needs PROCESS (error 1227 without it). The state of every counter writeamp
-- reads, to enable only those that are off and restore exactly them.
-- max_version: 1000000
SELECT NAME, STATUS = 'enabled' FROM information_schema.INNODB_METRICS
WHERE NAME IN ('index_page_splits', 'index_page_merge_attempts', 'index_page_merge_successful',
               'trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits', 'trx_rollbacks')
ORDER BY NAME

-- name: monitor_state
-- MariaDB names the on/off column ENABLED.
-- min_version: 1000000
SELECT NAME, ENABLED <> 0 FROM information_schema.INNODB_METRICS
WHERE NAME IN ('index_page_splits', 'index_page_merge_attempts', 'index_page_merge_successful',
               'trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits', 'trx_rollbacks')
ORDER BY NAME

-- name: monitor_vars
SELECT @@GLOBAL.innodb_monitor_enable, @@GLOBAL.innodb_monitor_disable

-- name: monitor_enable
-- One counter by name. Needs SUPER (MariaDB) / SYSTEM_VARIABLES_ADMIN (MySQL).
SET GLOBAL innodb_monitor_enable = ?

-- name: monitor_disable
-- One counter by name (only those writeamp turned on).
SET GLOBAL innodb_monitor_disable = ?

-- name: monitor_enable_var_default
-- Puts the variable's text back to NULL; it turns no counter on or off.
SET GLOBAL innodb_monitor_enable = DEFAULT

-- name: monitor_disable_var_default
SET GLOBAL innodb_monitor_disable = DEFAULT

-- name: measuring_slot
-- Every writeamp run holds one of 32 named locks (writeamp:measuring:0..31)
-- for its whole measurement: MySQL has no shared named locks, so "another
-- run is measuring" is "another slot is in use". Released when the session
-- ends, however the process ends.
-- https://dev.mysql.com/doc/refman/8.0/en/locking-functions.html
SELECT GET_LOCK(CONCAT('writeamp:measuring:', ?), 0)

-- name: measuring_count
-- Sessions holding a measuring slot, this one included.
WITH RECURSIVE s (n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 31)
SELECT COUNT(*) FROM s WHERE IS_USED_LOCK(CONCAT('writeamp:measuring:', n)) IS NOT NULL

-- name: ledger_lock
-- Serializes reading and changing the ledger and the monitors.
SELECT GET_LOCK('writeamp:ledger', 10)

-- name: ledger_unlock
SELECT RELEASE_LOCK('writeamp:ledger')

-- name: release_all
SELECT RELEASE_ALL_LOCKS()

-- name: ledger_read
-- writeamp's record that it turned the index monitors on: the state to put
-- back, and when and by whom. It exists only while monitors writeamp turned
-- on are on; a later run restores them when the run that did is gone.
SELECT prior, created FROM writeamp_ledger.monitors

-- name: ledger_create
CREATE DATABASE IF NOT EXISTS writeamp_ledger;
CREATE TABLE IF NOT EXISTS writeamp_ledger.monitors (prior text NOT NULL, created varchar(255) NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS writeamp_ledger.pins (id varchar(64) NOT NULL PRIMARY KEY, created varchar(64) NOT NULL) ENGINE=InnoDB

-- name: ledger_write
INSERT INTO writeamp_ledger.monitors (prior, created) VALUES (?, ?)

-- name: ledger_pin_add
-- A snapshot taken with --enable-monitors keeps them on until its diff.
INSERT INTO writeamp_ledger.pins (id, created) VALUES (?, ?)

-- name: ledger_pin_delete
DELETE FROM writeamp_ledger.pins WHERE id = ?

-- name: ledger_pin_count
SELECT COUNT(*) FROM writeamp_ledger.pins

-- name: ledger_pin_clear
DELETE FROM writeamp_ledger.pins

-- name: ledger_drop
DROP DATABASE IF EXISTS writeamp_ledger
