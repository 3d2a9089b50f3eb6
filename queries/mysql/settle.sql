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
