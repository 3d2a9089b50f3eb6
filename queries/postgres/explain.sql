-- writeamp explain: the catalog a write statement's prediction needs, read
-- only (pg_index, pg_class, pg_am; pg_get_indexdef deparses each index so
-- PostgreSQL's own parser reads its key, INCLUDE, expression and predicate
-- columns back).

-- name: explain_table_indexes
-- $1 is the table's name as to_regclass reads it (quoted, maybe qualified).
SELECT n.nspname, t.relname, coalesce(i.relname, ''), coalesce(pg_get_indexdef(i.oid), ''),
       coalesce(am.amname, ''), coalesce(x.indisprimary, false)
FROM pg_class t
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_index x ON x.indrelid = t.oid
LEFT JOIN pg_class i ON i.oid = x.indexrelid
LEFT JOIN pg_am am ON am.oid = i.relam
WHERE t.oid = to_regclass($1)
ORDER BY i.relname
