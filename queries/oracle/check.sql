-- What `writeamp check` sends of its own around a user's migration (Oracle).

-- name: rollback
ROLLBACK

-- name: current_schema
SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA') FROM DUAL

-- name: set_current_schema
-- The built-in workload's migration is applied with the workload's user as
-- the session's current schema: unqualified names resolve there, with the
-- login's own privileges.
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/ALTER-SESSION.html
ALTER SESSION SET CURRENT_SCHEMA = {{schema}}

-- name: check_catalog
-- The current schema's definitions, one line per fact, so the catalog before
-- a check and after its restore compare as text: objects (type and status),
-- columns (type, length, precision, scale, nullability), index columns (and
-- uniqueness) and constraints. Not compared: grants, data, statistics, and
-- defaults and CHECK conditions (LONG columns). Dropped objects waiting in
-- the recycle bin (BIN$…) are left out: the restore purges what it drops.
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/USER_OBJECTS.html
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/USER_TAB_COLUMNS.html
SELECT 'object ' || object_name || ' type ' || object_type || ' ' || status
FROM user_objects WHERE object_name NOT LIKE 'BIN$%'
UNION ALL
SELECT 'column ' || table_name || '.' || column_name || ' #' || column_id || ' ' || data_type || '(' || data_length || ',' || data_precision || ',' || data_scale || ') null ' || nullable
FROM user_tab_columns WHERE table_name NOT LIKE 'BIN$%'
UNION ALL
SELECT 'index ' || c.table_name || '.' || c.index_name || ' ' || i.uniqueness || ' ' || i.index_type || ' key ' || c.column_position || ' ' || c.column_name || ' ' || c.descend
FROM user_ind_columns c JOIN user_indexes i ON i.index_name = c.index_name
WHERE c.index_name NOT LIKE 'BIN$%'
UNION ALL
SELECT 'constraint ' || table_name || '.' || constraint_name || ' ' || constraint_type || ' ' || status
FROM user_constraints WHERE table_name NOT LIKE 'BIN$%'
ORDER BY 1

-- name: lock_timeout
-- --lock-timeout for the migration's and the undo's DDL, in whole seconds
-- (0 is NOWAIT, 1,000,000 waits forever; ORA-00054 when exceeded). DML row
-- locks have no session timeout in Oracle.
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/DDL_LOCK_TIMEOUT.html
ALTER SESSION SET DDL_LOCK_TIMEOUT = {{s}}

-- name: lock_timeout_reset
-- A pooled session that served one of check's bounded reads goes back to
-- the pool with the default (0: NOWAIT).
ALTER SESSION SET DDL_LOCK_TIMEOUT = 0

-- name: check_session_id
SELECT TO_CHAR(SYS_CONTEXT('USERENV', 'SID')) FROM dual

-- name: blocking_sessions
-- The session blocking ours: V$SESSION.BLOCKING_SESSION, with its user,
-- status and program (SELECT on V_$SESSION, e.g. SELECT_CATALOG_ROLE).
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SESSION.html
SELECT TO_CHAR(b.sid), COALESCE(b.username, ' '), b.status, COALESCE(b.program, ' ')
FROM v$session w JOIN v$session b ON b.sid = w.blocking_session
WHERE w.sid = TO_NUMBER(:1)
