-- Oracle: what the server is and what this login may read. The version and
-- identity blocks read only what every session may (PRODUCT_COMPONENT_VERSION,
-- SYS_CONTEXT); the V$ blocks may fail with ORA-00942 and the probe goes on.

-- name: version
-- "19.0.0.0.0" on every 19c: the release update needs version_full (18c+).
SELECT version FROM product_component_version WHERE product LIKE 'Oracle%' AND ROWNUM = 1

-- name: version_full
-- min_version: 180000
SELECT version_full FROM product_component_version WHERE product LIKE 'Oracle%' AND ROWNUM = 1

-- name: probe
SELECT SYS_CONTEXT('USERENV', 'DB_NAME'), SYS_CONTEXT('USERENV', 'CON_NAME'), USER,
       SYS_CONTEXT('USERENV', 'DBID'), SYS_CONTEXT('USERENV', 'SERVER_HOST')
FROM dual

-- name: instance
-- Restarts reset every V$ counter; the start time lets a diff refuse them.
SELECT TO_CHAR(startup_time, 'YYYY-MM-DD HH24:MI:SS'), instance_name FROM v$instance

-- name: statistics_level
-- V$SEGMENT_STATISTICS is empty under BASIC.
SELECT value FROM v$parameter WHERE name = 'statistics_level'
