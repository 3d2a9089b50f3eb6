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
