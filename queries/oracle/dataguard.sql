-- Oracle Data Guard: what the primary ships to each destination, and what a
-- physical standby receives and applies. Every V$ view here is read with
-- SELECT_CATALOG_ROLE, which "gives users SELECT privileges on data
-- dictionary views"
-- (https://docs.amazonaws.cn/en_us/AmazonRDS/latest/UserGuide/Appendix.Oracle.CommonDBATasks.PermissionsNonMasters.md),
-- with the SELECT ANY DICTIONARY system privilege ("query access to any
-- object in the SYS schema", Oracle Database Security Guide 10.1 as quoted in
-- https://blog.csdn.net/weixin_35665083/article/details/116398341), or with
-- SELECT on its SYS.V_$ view, which only SYS can grant (V$ names are public
-- synonyms of those views). Nothing here was run against an Oracle server.

-- name: database_role
-- The probe's role: USERENV needs no privilege, unlike V$DATABASE. USERENV's
-- DATABASE_ROLE is the Data Guard role (PRIMARY, PHYSICAL STANDBY, LOGICAL
-- STANDBY or SNAPSHOT STANDBY), DB_UNIQUE_NAME the DB_UNIQUE_NAME
-- initialization parameter
-- (https://docs.oracle.com/cd/E16338_01/olap.112/b70202/row_functions079.htm,
-- https://docs.oracle.com/cd/E24693_01/olap.11203/e23381/row_functions079.htm,
-- https://docs.oracle.com/en/database/oracle/oracle-database/12.2/sqlrf/SYS_CONTEXT.html);
-- V$DATABASE.DATABASE_ROLE holds the same
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-DATABASE.html).
-- Asked on its own: an unknown USERENV parameter fails the whole statement.
SELECT SYS_CONTEXT('USERENV', 'DATABASE_ROLE'), SYS_CONTEXT('USERENV', 'DB_UNIQUE_NAME') FROM dual

-- name: v_archived_log_recid
-- The window's bound on a primary: the highest archived log record ID
-- (RECID, "Archived log record ID") in the control file at the snapshot. A
-- record is "inserted after the online redo log is successfully archived",
-- so the records above the before snapshot's RECID are the logs archived in
-- the window. That takes RECID as growing with each record added, which the
-- reference does not state; a RECID that goes down makes the window's figures
-- unavailable (https://docs.oracle.com/database/122/REFRN/V-ARCHIVED_LOG.htm,
-- 19c: https://docs.oracle.com/cd/E96517_01/refrn/V-ARCHIVED_LOG.html).
-- NUMBER: go-ora returns it as a decimal string.
SELECT NVL(MAX(recid), 0) FROM v$archived_log

-- name: v_archived_log_window
-- The logs archived in the window, per destination (DEST_ID, "original
-- destination from which the archive log was generated", 0 when not
-- available): their number and BLOCKS * BLOCK_SIZE ("size of the archived
-- log (in blocks)", "redo log block size", the online log's logical block
-- size). Whole logs only: the online log being written is in no record yet.
-- CREATOR RMAN and SRMN (RMAN on a standby) are left out: restores and RMAN
-- copies insert records too, and they are no archival of the window's redo
-- (https://docs.oracle.com/cd/E96517_01/refrn/V-ARCHIVED_LOG.html,
-- https://docs.oracle.com/database/122/REFRN/V-ARCHIVED_LOG.htm).
-- :1 and :2 are the two snapshots' RECIDs.
SELECT dest_id, COUNT(*), SUM(blocks * block_size)
FROM v$archived_log
WHERE recid > :1 AND recid <= :2 AND NVL(creator, '-') NOT IN ('RMAN', 'SRMN')
GROUP BY dest_id
ORDER BY dest_id

-- name: v_archive_dest_status
-- Each configured destination, named as the primary names it (DEST_NAME, the
-- LOG_ARCHIVE_DEST_n parameter), with STATUS (VALID: "initialized and
-- available") and TYPE (LOCAL: "local to primary database"; PHYSICAL, LOGICAL,
-- SNAPSHOT, FAR SYNC, ... a remote copy). INACTIVE is "no destination
-- information": not a destination at all. The view "does not persist across
-- an instance shutdown"
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-ARCHIVE_DEST_STATUS.html,
-- https://docs.oracle.com/en/database/oracle/oracle-database/12.2/refrn/V-ARCHIVE_DEST_STATUS.html).
SELECT dest_id, dest_name, status, type
FROM v$archive_dest_status
WHERE status <> 'INACTIVE'
ORDER BY dest_id

-- name: v_dataguard_stats
-- A standby's transport and apply lag: VALUE is VARCHAR2(64) text (an
-- interval such as '+00 00:00:05', UNIT its type), TIME_COMPUTED when the
-- standby computed it and DATUM_TIME when the datum it used arrived, both
-- VARCHAR2(30) local times; "If the value of this column does not change
-- across multiple queries, the standby is not receiving data from the
-- primary". No rows on a primary. NAME is upper case in the 11.2 reference
-- and lower case in 23ai's, so it is compared in lower case
-- (https://docs.oracle.com/en/database/oracle/oracle-database/18/refrn/V-DATAGUARD_STATS.html,
-- https://docs.oracle.com/cd/E11882_01/server.112/e40402/dynviews_1104.htm,
-- https://docs.oracle.com/cd/G47991_01/refrn/V-DATAGUARD_STATS.html).
SELECT LOWER(name), value, unit, time_computed, datum_time
FROM v$dataguard_stats
WHERE LOWER(name) IN ('transport lag', 'apply lag')

-- name: v_recovery_progress
-- Redo Apply's own count on a physical standby: ITEM 'Redo Applied' of TYPE
-- MEDIA RECOVERY, SOFAR in UNITS since the recovery session's START_TIME.
-- The reference names no unit per item; servers print 'Megabytes'
-- (https://www.cnblogs.com/abclife/p/5377353.html), so the collector reads
-- UNITS and refuses any other. V$RECOVERY_PROGRESS is a subview of
-- V$SESSION_LONGOPS, so an ended recovery's rows may remain: newest first.
-- TYPE is upper case in the reference and mixed case as servers print it:
-- compared in upper case. V$MANAGED_STANDBY is deprecated since 12.2, and
-- V$DATAGUARD_PROCESS (its successor) shows only the block a process is at,
-- no count of redo applied
-- (https://docs.oracle.com/en/database/oracle/oracle-database/26/refrn/V-RECOVERY_PROGRESS.html,
-- https://docs.oracle.com/database/121/REFRN/GUID-B200FEC9-574F-4636-8DA6-2A560369760E.htm,
-- https://docs.oracle.com/database/122/REFRN/V-MANAGED_STANDBY.htm,
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-DATAGUARD_PROCESS.html).
SELECT TO_CHAR(start_time, 'YYYY-MM-DD HH24:MI:SS'), units, sofar
FROM v$recovery_progress
WHERE UPPER(type) = 'MEDIA RECOVERY' AND UPPER(item) = 'REDO APPLIED'
ORDER BY start_time DESC
