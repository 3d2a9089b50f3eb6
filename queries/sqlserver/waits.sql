-- SQL Server: the waits of the workload's own sessions.

-- name: sys_dm_exec_session_wait_stats
-- The cumulative waits of each user session of one program (@p1, the
-- connection's application name: writeamp's sessions say 'writeamp'; N''
-- for every session) but this one, for the wait types of
-- sys_dm_os_wait_stats plus the lock waits (LCK_M_*).
-- sys.dm_exec_session_wait_stats (2016+): session_id smallint, wait_type
-- nvarchar(60), waiting_tasks_count bigint, wait_time_ms bigint; cleared when
-- the session opens or a pooled connection is reset. Without VIEW SERVER
-- STATE (2016-2019) / VIEW SERVER PERFORMANCE STATE (2022+) it shows only
-- the current session, silently
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-session-wait-stats-transact-sql).
-- sys.dm_exec_sessions: login_time datetime (not NULL), program_name
-- nvarchar(128) NULL, is_user_process bit
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-sessions-transact-sql).
-- The session is named by its id and login time (ids are reused).
SELECT w.session_id, CONCAT(w.session_id, N'@', CONVERT(nvarchar(23), s.login_time, 126)), w.wait_type, w.waiting_tasks_count, w.wait_time_ms
FROM sys.dm_exec_session_wait_stats AS w
JOIN sys.dm_exec_sessions AS s ON s.session_id = w.session_id
WHERE s.is_user_process = 1 AND w.session_id <> @@SPID AND (@p1 = N'' OR s.program_name = @p1)
  AND (w.wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH', N'PAGELATCH_UP', N'WRITELOG', N'LOGBUFFER',
                       N'LOG_RATE_GOVERNOR', N'HADR_THROTTLE_LOG_RATE_GOVERNOR')
       OR w.wait_type LIKE N'PAGEIOLATCH[_]%' OR w.wait_type LIKE N'RBIO[_]RG[_]%' OR w.wait_type LIKE N'LCK[_]M[_]%')

-- name: session_id
-- This session's id, as sys.dm_exec_session_wait_stats.session_id shows it.
SELECT @@SPID
