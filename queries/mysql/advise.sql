-- writeamp advise: what the user's database itself says of each index, read
-- only: reads through it since the server started (performance_schema's
-- index usage; no rows when performance_schema is off), so that an index
-- another reader uses is not proposed for dropping. The constraint column
-- is empty: InnoDB's unique keys are never proposed, and a foreign key's
-- index refuses to be dropped (the candidate is then skipped with that error).

-- name: advise_index_usage
SELECT OBJECT_SCHEMA, INDEX_NAME, COUNT_FETCH, ''
FROM performance_schema.table_io_waits_summary_by_index_usage
WHERE INDEX_NAME IS NOT NULL AND INDEX_NAME <> 'PRIMARY' AND OBJECT_SCHEMA = DATABASE()
