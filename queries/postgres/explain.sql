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

-- name: explain_table_columns
-- $1 as for explain_table_indexes. The columns' types and NOT NULL (whether
-- a SET expression can give the old value back), the heap's fillfactor, and
-- the TOAST index a toasted value's chunks get entries in.
SELECT a.attname, ty.typname, a.attnotnull, a.attlen = -1 AND a.attstorage <> 'p',
       coalesce((SELECT o.option_value FROM pg_options_to_table(t.reloptions) o WHERE o.option_name = 'fillfactor'), '100'),
       coalesce((SELECT tn.nspname || '.' || ti.relname FROM pg_index tx
                 JOIN pg_class ti ON ti.oid = tx.indexrelid JOIN pg_namespace tn ON tn.oid = ti.relnamespace
                 WHERE tx.indrelid = t.reltoastrelid LIMIT 1), '')
FROM pg_class t
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type ty ON ty.oid = a.atttypid
WHERE t.oid = to_regclass($1)
ORDER BY a.attnum
