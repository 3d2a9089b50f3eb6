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
-- USERENV's CON_NAME and CON_ID exist from 12.1, SERVER_HOST from 11.2
-- (https://docs.oracle.com/en/database/oracle/oracle-database/12.2/sqlrf/SYS_CONTEXT.html).
-- CON_ID is 0 outside a CDB, 1 in its root, 2 for PDB$SEED and more for a
-- PDB, where V$SYSSTAT/V$SYSTEM_EVENT are not the PDB's own figures.
SELECT SYS_CONTEXT('USERENV', 'DB_NAME'), SYS_CONTEXT('USERENV', 'CON_NAME'), USER,
       SYS_CONTEXT('USERENV', 'SERVER_HOST'), SYS_CONTEXT('USERENV', 'CON_ID')
FROM dual

-- name: dbid
-- Asked on its own: USERENV's DBID parameter could not be confirmed in the
-- SQL Language Reference of every release from 12.2 to 23ai, and an unknown
-- USERENV parameter fails the whole statement (ORA-02003). When it does, the
-- probe reads V$DATABASE, and without that goes on with the names only.
SELECT SYS_CONTEXT('USERENV', 'DBID') FROM dual

-- name: dbid_v_database
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-DATABASE.html
SELECT TO_CHAR(dbid) FROM v$database

-- name: instance
-- Restarts reset every V$ counter; the start time lets a diff refuse them.
SELECT TO_CHAR(startup_time, 'YYYY-MM-DD HH24:MI:SS'), instance_name FROM v$instance

-- name: parameters
-- V$SEGMENT_STATISTICS is empty under STATISTICS_LEVEL BASIC. COMPATIBLE
-- below 12.2 keeps names to 30 bytes even on 18c and later: "If COMPATIBLE is
-- set to a value lower than 12.2, then names must be from 1 to 30 bytes long"
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/Database-Object-Names-and-Qualifiers.html).
SELECT name, value FROM v$parameter WHERE name IN ('statistics_level', 'compatible')
