-- MySQL / MariaDB: the databases and tables a --schema/--table scope is
-- checked against before measuring, and how the server compares their names.

-- name: scope_schemas
SELECT SCHEMA_NAME FROM information_schema.SCHEMATA
WHERE SCHEMA_NAME NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
ORDER BY 1

-- name: scope_tables
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES
WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'writeamp_ledger')
ORDER BY 1, 2

-- name: identifier_case
-- 0: names compared case-sensitively; 1, 2: case-insensitively
-- (https://dev.mysql.com/doc/refman/8.0/en/identifier-case-sensitivity.html,
-- https://mariadb.com/kb/en/server-system-variables/#lower_case_table_names).
SELECT @@lower_case_table_names
