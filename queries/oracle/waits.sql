-- Oracle: the waits of the workload's own sessions.

-- name: v_session_event
-- Each session's cumulative waits for the write-relevant events, for the
-- user sessions of one program (:1/:2, V$SESSION.PROGRAM; NULL for every
-- session) but this one. V$SESSION_EVENT: SID NUMBER, EVENT VARCHAR2(64),
-- TOTAL_WAITS NUMBER, TIME_WAITED_MICRO NUMBER; a session's rows live as long
-- as the session
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SESSION_EVENT.html).
-- V$SESSION: SID, SERIAL# NUMBER (a SID is reused; SID and SERIAL# name one
-- session), TYPE VARCHAR2(10) 'USER' or 'BACKGROUND', PROGRAM VARCHAR2(84)
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SESSION.html).
-- In a PDB both show that PDB's sessions. Needs SELECT_CATALOG_ROLE, or
-- SELECT on SYS.V_$SESSION_EVENT and SYS.V_$SESSION.
SELECT s.sid, s.sid || ',' || s.serial#, e.event, e.total_waits, e.time_waited_micro
FROM v$session_event e JOIN v$session s ON s.sid = e.sid
WHERE s.type = 'USER' AND s.sid <> TO_NUMBER(SYS_CONTEXT('USERENV', 'SID'))
  AND (:1 IS NULL OR s.program = :2)
  AND e.event IN ('enq: TX - index contention', 'buffer busy waits', 'log file sync', 'enq: TX - row lock contention',
                  'read by other session', 'db file sequential read', 'log buffer space')

-- name: session_id
-- This session's SID, as V$SESSION.SID shows it.
SELECT SYS_CONTEXT('USERENV', 'SID') FROM dual
