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
WHERE SCHEMA_NAME NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND SCHEMA_NAME NOT LIKE 'writeamp\_rt\_%' AND SCHEMA_NAME <> 'writeamp_ledger'
UNION ALL
SELECT CONCAT('table ', TABLE_SCHEMA, '.', TABLE_NAME, ' ', TABLE_TYPE, ' ', COALESCE(ENGINE, '-'))
FROM information_schema.TABLES
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('column ', TABLE_SCHEMA, '.', TABLE_NAME, '.', COLUMN_NAME, ' #', ORDINAL_POSITION, ' ', COLUMN_TYPE,
              ' null ', IS_NULLABLE, ' default ', COALESCE(COLUMN_DEFAULT, '-'), ' ', EXTRA)
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('index ', TABLE_SCHEMA, '.', TABLE_NAME, '.', INDEX_NAME, ' part ', SEQ_IN_INDEX, ' ', COALESCE(COLUMN_NAME, '(expression)'),
              ' prefix ', COALESCE(SUB_PART, '-'), ' unique ', 1 - NON_UNIQUE, ' ', INDEX_TYPE)
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TABLE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('constraint ', CONSTRAINT_SCHEMA, '.', TABLE_NAME, '.', CONSTRAINT_NAME, ' ', CONSTRAINT_TYPE)
FROM information_schema.TABLE_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND CONSTRAINT_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(CONSTRAINT_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('check ', CONSTRAINT_SCHEMA, '.', CONSTRAINT_NAME, ': ', CHECK_CLAUSE)
FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND CONSTRAINT_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND CONSTRAINT_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(CONSTRAINT_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('routine ', ROUTINE_SCHEMA, '.', ROUTINE_NAME, ' ', ROUTINE_TYPE)
FROM information_schema.ROUTINES
WHERE ROUTINE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND ROUTINE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND ROUTINE_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(ROUTINE_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('trigger ', TRIGGER_SCHEMA, '.', TRIGGER_NAME, ' on ', EVENT_OBJECT_TABLE, ' ', ACTION_TIMING, ' ', EVENT_MANIPULATION)
FROM information_schema.TRIGGERS
WHERE TRIGGER_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TRIGGER_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TRIGGER_SCHEMA <> 'writeamp_ledger'
  AND (? = '' OR FIND_IN_SET(TRIGGER_SCHEMA, ?) > 0)
UNION ALL
SELECT CONCAT('view ', TABLE_SCHEMA, '.', TABLE_NAME, ': ', COALESCE(VIEW_DEFINITION, '-'))
FROM information_schema.VIEWS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_rt\_%' AND TABLE_SCHEMA <> 'writeamp_ledger'
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
