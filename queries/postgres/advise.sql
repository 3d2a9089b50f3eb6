-- writeamp advise: what the user's database itself says of each index, read
-- only: idx_scan since the statistics reset (the copies start at 0), and the
-- constraint it backs (pg_constraint.conindid), so that an index a reader
-- other than the measured workload uses, or a constraint needs, is not
-- proposed for dropping.

-- name: advise_index_usage
SELECT s.schemaname, s.indexrelname, s.idx_scan, coalesce(string_agg(c.conname, ', ' ORDER BY c.conname), '')
FROM pg_stat_user_indexes s
LEFT JOIN pg_constraint c ON c.conindid = s.indexrelid
GROUP BY s.schemaname, s.indexrelname, s.idx_scan
