-- MySQL / MariaDB: the tables and indexes a budget's [OBJECT] may name, read
-- before the workload runs (check). writeamp's own databases are not offered.
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-statistics-table.html

-- name: budget_objects
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_%'
UNION
SELECT DISTINCT TABLE_SCHEMA, INDEX_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_SCHEMA NOT LIKE 'writeamp\_%'
ORDER BY 1, 2
