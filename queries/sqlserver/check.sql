-- What `writeamp check` sends of its own around a user's migration (SQL Server).

-- name: rollback
IF @@TRANCOUNT > 0 ROLLBACK

-- name: schema_user_create
-- SQL Server has no per-session default schema: unqualified names resolve in
-- the default schema of the database user the session runs as, and a
-- sysadmin's is always dbo. So the built-in workload's migration runs as a
-- user without login whose default schema is the workload's, through
-- EXECUTE AS USER, with DDL and data rights in this database (db_ddladmin,
-- db_datareader, db_datawriter), and the user is dropped right after.
-- Needs ALTER ANY USER and ALTER ANY ROLE, or db_owner.
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/create-user-transact-sql
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/execute-as-transact-sql
CREATE USER {{schema}} WITHOUT LOGIN WITH DEFAULT_SCHEMA = {{schema}};
ALTER ROLE db_ddladmin ADD MEMBER {{schema}};
ALTER ROLE db_datareader ADD MEMBER {{schema}};
ALTER ROLE db_datawriter ADD MEMBER {{schema}}

-- name: schema_user_enter
EXECUTE AS USER = N'{{schema}}'

-- name: schema_user_leave
REVERT

-- name: schema_user_drop
-- Objects the user created belong to the schema's owner, so the user owns
-- nothing and can be dropped.
DROP USER {{schema}}

-- name: check_catalog
-- The current database's definitions, one line per fact, so the catalog
-- before a check and after its restore compare as text: schemas, objects
-- (type, parent and the module or constraint definition), columns (type,
-- length, precision, scale, nullability) and index key and included
-- columns with their filter. Not compared: permissions, data, statistics.
-- Microsoft's objects, the fixed roles' schemas and writeamp's own
-- (writeamp_rt_*: the workload's, dropped by their own lifecycle) are left out.
-- https://learn.microsoft.com/en-us/sql/relational-databases/system-catalog-views/sys-objects-transact-sql
-- https://learn.microsoft.com/en-us/sql/relational-databases/system-catalog-views/sys-index-columns-transact-sql
SELECT CONCAT(N'schema ', s.name)
FROM sys.schemas s
WHERE s.schema_id < 16384 AND s.name NOT IN (N'sys', N'INFORMATION_SCHEMA', N'guest') AND s.name NOT LIKE N'writeamp[_]rt[_]%'
UNION ALL
SELECT CONCAT(N'object ', s.name, N'.', o.name, N' type ', RTRIM(o.type), N' parent ', COALESCE(OBJECT_NAME(o.parent_object_id), N'-'),
              N' ', COALESCE(OBJECT_DEFINITION(o.object_id), N''))
FROM sys.objects o JOIN sys.schemas s ON s.schema_id = o.schema_id
WHERE o.is_ms_shipped = 0 AND s.name NOT LIKE N'writeamp[_]rt[_]%'
UNION ALL
SELECT CONCAT(N'column ', s.name, N'.', o.name, N'.', c.name, N' #', c.column_id, N' ', t.name, N'(', c.max_length, N',', c.precision, N',', c.scale,
              N') null ', c.is_nullable, N' identity ', c.is_identity, N' computed ', c.is_computed)
FROM sys.columns c JOIN sys.objects o ON o.object_id = c.object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE o.is_ms_shipped = 0 AND o.type IN ('U', 'V') AND s.name NOT LIKE N'writeamp[_]rt[_]%'
UNION ALL
SELECT CONCAT(N'index ', s.name, N'.', o.name, N'.', i.name, N' ', i.type_desc, N' unique ', i.is_unique, N' key ', ic.key_ordinal,
              N' ', c.name, N' included ', ic.is_included_column, N' descending ', ic.is_descending_key, N' filter ', COALESCE(i.filter_definition, N'-'))
FROM sys.indexes i JOIN sys.objects o ON o.object_id = i.object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
WHERE o.is_ms_shipped = 0 AND i.name IS NOT NULL AND s.name NOT LIKE N'writeamp[_]rt[_]%'
ORDER BY 1

-- name: lock_timeout
-- --lock-timeout for the migration's and the undo's session, in milliseconds
-- (-1 waits forever; error 1222 when exceeded). CREATE/ALTER/DROP DATABASE
-- do not honour it.
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/set-lock-timeout-transact-sql
SET LOCK_TIMEOUT {{ms}}

-- name: lock_timeout_reset
-- A pooled session that served one of check's bounded reads goes back to
-- the pool waiting as long as it takes (the default).
SET LOCK_TIMEOUT -1

-- name: check_session_id
SELECT CAST(@@SPID AS nvarchar(10))

-- name: blocking_sessions
-- The session blocking ours (sys.dm_exec_requests.blocking_session_id) with
-- its login, status and last statement; VIEW SERVER STATE (2022+: VIEW
-- SERVER PERFORMANCE STATE) to see other sessions.
-- https://learn.microsoft.com/en-us/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-requests-transact-sql
-- https://learn.microsoft.com/en-us/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-sessions-transact-sql
SELECT CAST(s.session_id AS nvarchar(10)), s.login_name, s.status, COALESCE(LEFT(t.text, 200), N'')
FROM sys.dm_exec_requests r
JOIN sys.dm_exec_sessions s ON s.session_id = r.blocking_session_id
LEFT JOIN sys.dm_exec_connections c ON c.session_id = s.session_id
OUTER APPLY sys.dm_exec_sql_text(c.most_recent_sql_handle) t
WHERE r.session_id = CAST(@p1 AS int) AND r.blocking_session_id <> 0
