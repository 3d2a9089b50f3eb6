-- The interval sampler's one statement (measure/run --interval): redo
-- bytes and commits, the instance's from V$SYSSTAT outside a CDB and in its
-- root, the PDB's from V$CON_SYSSTAT in a pluggable database
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SYSSTAT.html,
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-CON_SYSSTAT.html;
-- 'redo size' and 'user commits': https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/statistics-descriptions-2.html).

-- name: timeline
SELECT name, value FROM v$sysstat WHERE name IN ('redo size', 'user commits')

-- name: timeline_con
SELECT name, value FROM v$con_sysstat WHERE name IN ('redo size', 'user commits')
