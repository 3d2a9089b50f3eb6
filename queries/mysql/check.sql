-- What `writeamp check` sends of its own around a user's migration (MySQL / MariaDB).

-- name: rollback
ROLLBACK

-- name: current_database
SELECT DATABASE()

-- name: use_database
-- The built-in workload's migration is applied inside its own database, so
-- unqualified names mean the workload's tables; {{schema}} is quoted.
USE {{schema}}

-- name: check_catalog
-- The definitions, one line per fact, so the catalog before a check and after
-- its restore compare as text: every user database by name (its character
-- set and collation), and of the databases in scope (? twice: the list,
-- comma-joined; '' = every user database) the tables and views, columns
-- (type, nullability, default, extra), index key parts, constraints, CHECK
-- clauses, routines, triggers and views' definitions. Not compared:
-- privileges, data, statistics. System databases and writeamp's own
-- (writeamp_rt_*: the workload's, and the monitor ledger writeamp_ledger) are left out. No
-- ORDER BY: information_schema's columns differ in collation between
-- servers, so the lines are sorted by the caller.
-- https://mariadb.com/kb/en/information-schema-tables/
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-table-reference.html
SELECT CONCAT('database ', SCHEMA_NAME, ' ', DEFAULT_CHARACTER_SET_NAME, ' ', DEFAULT_COLLATION_NAME)
FROM information_schema.SCHEMATA
WHERE SCHEMA_NAME NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND SCHEMA_NAME NOT LIKE 'writeamp\_rt\_%' AND SCHEMA_NAME NOT LIKE 'writeamp\_undo\_%' AND SCHEMA_NAME <> 'writeamp_ledger'
UNION ALL
SELECT CONCAT('table ', TABLE_SCHEMA, '.', TABLE_NAME, ' ', TABLE_TYPE, ' ', COALESCE(ENGINE, '-'))
FROM information_schema.TABLES
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('column ', TABLE_SCHEMA, '.', TABLE_NAME, '.', COLUMN_NAME, ' #', ORDINAL_POSITION, ' ', COLUMN_TYPE,
              ' null ', IS_NULLABLE, ' default ', COALESCE(COLUMN_DEFAULT, '-'), ' ', EXTRA)
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('index ', TABLE_SCHEMA, '.', TABLE_NAME, '.', INDEX_NAME, ' part ', SEQ_IN_INDEX, ' ', COALESCE(COLUMN_NAME, '(expression)'),
              ' prefix ', COALESCE(SUB_PART, '-'), ' unique ', 1 - NON_UNIQUE, ' ', INDEX_TYPE)
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('constraint ', CONSTRAINT_SCHEMA, '.', TABLE_NAME, '.', CONSTRAINT_NAME, ' ', CONSTRAINT_TYPE)
FROM information_schema.TABLE_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND CONSTRAINT_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(CONSTRAINT_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('check ', CONSTRAINT_SCHEMA, '.', CONSTRAINT_NAME, ': ', CHECK_CLAUSE)
FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND CONSTRAINT_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(CONSTRAINT_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('routine ', ROUTINE_SCHEMA, '.', ROUTINE_NAME, ' ', ROUTINE_TYPE)
FROM information_schema.ROUTINES
WHERE ROUTINE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND ROUTINE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND ROUTINE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND ROUTINE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(ROUTINE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('trigger ', TRIGGER_SCHEMA, '.', TRIGGER_NAME, ' on ', EVENT_OBJECT_TABLE, ' ', ACTION_TIMING, ' ', EVENT_MANIPULATION)
FROM information_schema.TRIGGERS
WHERE TRIGGER_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TRIGGER_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TRIGGER_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND TRIGGER_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TRIGGER_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('view ', TABLE_SCHEMA, '.', TABLE_NAME, ': ', COALESCE(VIEW_DEFINITION, '-'))
FROM information_schema.VIEWS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)

-- name: exists_table
-- The existence of what a migration's CREATE … IF NOT EXISTS or DROP … IF
-- EXISTS names, before check applies anything: (how many match as the
-- server compares names, how many match byte for byte). Placeholders in order: the
-- name, the schema ('' = the connection's database), the name[, the table].
-- information_schema compares names case-insensitively (utf8 general
-- collation), while table and database names are case-sensitive on disk
-- with lower_case_table_names = 0: a match that differs in case only is
-- ambiguous and check refuses it. Index, column and routine names are
-- case-insensitive on every server.
-- https://mariadb.com/kb/en/information-schema-tables-table/
-- https://mariadb.com/kb/en/information-schema-statistics-table/
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-tables-table.html
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-statistics-table.html
-- https://dev.mysql.com/doc/refman/8.0/en/identifier-case-sensitivity.html
-- Tables, views and (MariaDB) sequences share one namespace.
SELECT COUNT(*), COALESCE(SUM(BINARY TABLE_NAME = ?), 0) FROM information_schema.TABLES
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ?

-- name: exists_schema
SELECT COUNT(*), COALESCE(SUM(BINARY SCHEMA_NAME = ?), 0) FROM information_schema.SCHEMATA
WHERE ? = '' AND SCHEMA_NAME = ?

-- name: exists_index
SELECT COUNT(DISTINCT INDEX_NAME), COUNT(DISTINCT CASE WHEN BINARY INDEX_NAME = ? THEN INDEX_NAME END) FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND INDEX_NAME = ? AND TABLE_NAME = ?

-- name: exists_column
SELECT COUNT(*), COALESCE(SUM(BINARY COLUMN_NAME = ?), 0) FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND COLUMN_NAME = ? AND TABLE_NAME = ?

-- name: exists_procedure
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-routines-table.html
SELECT COUNT(*), COALESCE(SUM(BINARY ROUTINE_NAME = ?), 0) FROM information_schema.ROUTINES
WHERE ROUTINE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND ROUTINE_NAME = ? AND ROUTINE_TYPE = 'PROCEDURE'

-- name: exists_function
SELECT COUNT(*), COALESCE(SUM(BINARY ROUTINE_NAME = ?), 0) FROM information_schema.ROUTINES
WHERE ROUTINE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND ROUTINE_NAME = ? AND ROUTINE_TYPE = 'FUNCTION'

-- name: exists_trigger
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-triggers-table.html
SELECT COUNT(*), COALESCE(SUM(BINARY TRIGGER_NAME = ?), 0) FROM information_schema.TRIGGERS
WHERE TRIGGER_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TRIGGER_NAME = ?

-- name: exists_event
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-events-table.html
SELECT COUNT(*), COALESCE(SUM(BINARY EVENT_NAME = ?), 0) FROM information_schema.EVENTS
WHERE EVENT_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND EVENT_NAME = ?

-- name: lock_timeout
-- --lock-timeout for the migration's and the undo's session: metadata locks
-- (DDL waiting for a table another transaction uses) and InnoDB row locks.
-- MySQL and MariaDB default lock_wait_timeout to a year.
-- https://dev.mysql.com/doc/refman/8.0/en/server-system-variables.html#sysvar_lock_wait_timeout
-- https://dev.mysql.com/doc/refman/8.0/en/innodb-parameters.html#sysvar_innodb_lock_wait_timeout
-- https://mariadb.com/kb/en/server-system-variables/#lock_wait_timeout
-- Both take whole seconds, at least 1; errors 1205 (ER_LOCK_WAIT_TIMEOUT).
SET SESSION lock_wait_timeout = {{s}}, SESSION innodb_lock_wait_timeout = {{s}}

-- name: lock_timeout_reset
-- A pooled session that served one of check's bounded reads goes back to
-- the pool with the server's values.
SET SESSION lock_wait_timeout = DEFAULT, innodb_lock_wait_timeout = DEFAULT

-- name: check_session_id
SELECT CAST(CONNECTION_ID() AS CHAR)

-- name: blocking_sessions
-- MySQL/MariaDB name no blocker of a metadata lock without
-- performance_schema.metadata_locks (off by default on MariaDB): the
-- sessions holding an open InnoDB transaction are the candidates, which is
-- what a DDL waits for. Needs PROCESS to see other users' sessions.
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-innodb-trx-table.html
SELECT CAST(p.ID AS CHAR), COALESCE(p.USER, ''), CONCAT(COALESCE(p.COMMAND, ''), ', transaction open ', TIMESTAMPDIFF(SECOND, t.trx_started, NOW()), ' s'),
       COALESCE(LEFT(p.INFO, 200), '')
FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
WHERE p.ID <> CAST(? AS UNSIGNED) ORDER BY t.trx_started

-- name: in_transaction
-- Whether the migration's session was left inside a transaction (BEGIN or
-- START TRANSACTION without COMMIT, a DML statement then pending): MariaDB's
-- in_transaction is 1 inside one; MySQL has no such variable, and this
-- fails there (the caller then asks INNODB_TRX).
-- https://mariadb.com/kb/en/server-system-variables/#in_transaction
SELECT @@in_transaction <> 0

-- name: in_transaction_innodb
-- MySQL: a transaction InnoDB has started for this connection.
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-innodb-trx-table.html
SELECT COUNT(*) > 0 FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()

-- name: check_tables
-- The base tables of the databases in scope (? twice as in check_catalog)
-- with their columns (back-quoted, in order) and size, for the row
-- checksums that prove an undo changed no rows it should not.
-- https://mariadb.com/kb/en/information-schema-columns-table/
SELECT CONCAT(t.TABLE_SCHEMA, '.', t.TABLE_NAME),
       CONCAT('`', REPLACE(t.TABLE_SCHEMA, '`', '``'), '`.`', REPLACE(t.TABLE_NAME, '`', '``'), '`'),
       GROUP_CONCAT(CONCAT('`', REPLACE(c.COLUMN_NAME, '`', '``'), '`') ORDER BY c.ORDINAL_POSITION SEPARATOR ','),
       COALESCE(MAX(t.DATA_LENGTH), 0)
FROM information_schema.TABLES t JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
WHERE t.TABLE_TYPE = 'BASE TABLE' AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
  AND t.TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND t.TABLE_SCHEMA NOT LIKE 'writeamp\_undo\_%' AND t.TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(t.TABLE_SCHEMA, ?) > 0)
GROUP BY t.TABLE_SCHEMA, t.TABLE_NAME

-- name: table_checksum
-- A table's row count and an order-independent checksum of its rows over
-- the columns it had before ({{columns}}, each QUOTE()d so NULL and '' differ).
-- https://mariadb.com/kb/en/crc32/ https://mariadb.com/kb/en/quote/
SELECT COUNT(*), CAST(COALESCE(SUM(CRC32(CONCAT_WS(',', {{columns}}))), 0) AS CHAR) FROM {{table}}

-- name: check_lock
-- One check at a time per database: a named lock of check's own session
-- (released when the session ends, however writeamp ends), waited on for ?
-- seconds: 1 acquired, 0 timed out.
-- https://mariadb.com/kb/en/get_lock/ https://dev.mysql.com/doc/refman/8.0/en/locking-functions.html
SELECT GET_LOCK(LEFT(CONCAT('writeamp:check:', DATABASE()), 64), ?)

-- name: check_lock_holder
-- The connection holding check_lock, to name it.
-- https://mariadb.com/kb/en/is_used_lock/ https://mariadb.com/kb/en/information-schema-processlist-table/
SELECT CAST(ID AS CHAR), COALESCE(USER, ''), COALESCE(COMMAND, ''), COALESCE(HOST, ''), CAST(TIME AS CHAR)
FROM information_schema.PROCESSLIST WHERE ID = IS_USED_LOCK(LEFT(CONCAT('writeamp:check:', DATABASE()), 64))

-- name: check_unlock
SELECT RELEASE_LOCK(LEFT(CONCAT('writeamp:check:', DATABASE()), 64))

-- name: undo_marker_create
-- The record of an applied migration, written before it is applied: a
-- database of check's own (writeamp_undo_<run>, left out of the catalog
-- comparison) with the undo plan and the catalog it must restore.
CREATE DATABASE {{schema}}

-- name: undo_marker_table
CREATE TABLE {{schema}}.plan (seq int PRIMARY KEY, kind varchar(16) NOT NULL, line longtext NOT NULL) ENGINE=InnoDB

-- name: undo_marker_insert
INSERT INTO {{schema}}.plan VALUES (?, ?, ?)

-- name: undo_markers
SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME REGEXP '^writeamp_undo_[0-9a-f]{8}$' ORDER BY 1

-- name: undo_marker_read
SELECT kind, line FROM {{schema}}.plan ORDER BY seq

-- name: undo_marker_drop
DROP DATABASE IF EXISTS {{schema}}

-- name: undo_marker_db
-- The database a record belongs to (records are server-wide databases).
SELECT line FROM {{schema}}.plan WHERE kind = 'db'
