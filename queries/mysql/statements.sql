-- performance_schema's statement digests, read per digest and diffed across
-- a window; writeamp never truncates the table. Columns as in MariaDB's
-- https://mariadb.com/kb/en/performance-schema-events_statements_summary_by_digest-table
-- and MySQL's https://dev.mysql.com/doc/refman/8.0/en/performance-schema-statement-summary-tables.html
-- (the same names in both): SUM_TIMER_WAIT is in picoseconds; FIRST_SEEN
-- changes when the digest was removed (TRUNCATE) and seen again. The row
-- whose DIGEST is NULL gathers every statement that found the table full.

-- name: events_statements_summary_by_digest
SELECT concat(coalesce(SCHEMA_NAME, ''), '/', DIGEST), coalesce(DIGEST_TEXT, ''), cast(FIRST_SEEN AS char),
       COUNT_STAR, SUM_ROWS_AFFECTED, SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_TIMER_WAIT / 1000000000,
       SUM_CREATED_TMP_TABLES, SUM_CREATED_TMP_DISK_TABLES, SUM_NO_INDEX_USED
FROM performance_schema.events_statements_summary_by_digest
WHERE DIGEST IS NOT NULL

-- name: statements_digest_lost
-- Statements that found the digest table full (performance_schema_digests_size)
-- and were summed in the NULL-digest row instead.
SELECT coalesce((SELECT COUNT_STAR FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST IS NULL), 0)

-- name: statements_digest_on
-- The consumer that fills the digest table, and the one it depends on.
SELECT coalesce(sum(NAME = 'statements_digest' AND ENABLED = 'YES'), 0) + coalesce(sum(NAME = 'global_instrumentation' AND ENABLED = 'YES'), 0) = 2
FROM performance_schema.setup_consumers
