-- writeamp explain: a table's indexes and their columns, from
-- information_schema.STATISTICS (https://dev.mysql.com/doc/refman/8.0/en/information-schema-statistics-table.html,
-- https://mariadb.com/kb/en/information-schema-statistics-table/): one row per
-- index column; COLUMN_NAME is NULL for a functional key part (MySQL 8.0.13+),
-- whose EXPRESSION column MariaDB does not have, so it is not read.

-- name: explain_table_indexes
SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, coalesce(COLUMN_NAME, ''), NON_UNIQUE
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = coalesce(?, DATABASE()) AND TABLE_NAME = ?
ORDER BY INDEX_NAME, SEQ_IN_INDEX
