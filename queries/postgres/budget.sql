-- PostgreSQL: the tables and indexes a budget's [OBJECT] may name, read
-- before the workload runs (check). writeamp's own schemas are not offered.
-- https://www.postgresql.org/docs/current/catalog-pg-class.html

-- name: budget_objects
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm', 'i', 'I') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'writeamp\_%'
ORDER BY 1, 2
