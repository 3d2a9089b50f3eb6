-- SQL Server collectors: one block per source view. Scope filtering happens
-- in Go (case-insensitive, schema and table), so no list parameters here.

-- name: sys_indexes
-- Tables and their indexes (index_id 0 is a heap: the table, no index).
-- The key column list is assembled with FOR XML PATH, which 2016 has
-- (STRING_AGG ... WITHIN GROUP needs 2017).
SELECT s.name, t.name, i.name, t.object_id, i.index_id, i.type_desc,
       i.is_unique, i.has_filter, i.filter_definition,
       STUFF((SELECT N', ' + c.name + CASE WHEN ic.is_descending_key = 1 THEN N' DESC' ELSE N'' END
              FROM sys.index_columns ic
              JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
              WHERE ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0
              ORDER BY ic.key_ordinal
              FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 2, N'')
FROM sys.tables t
JOIN sys.schemas s ON s.schema_id = t.schema_id
JOIN sys.indexes i ON i.object_id = t.object_id
WHERE t.is_ms_shipped = 0
ORDER BY s.name, t.name, i.index_id

-- name: sys_dm_db_index_operational_stats
-- One row per index partition. partition_id joins in so that a rebuilt
-- index (new rowset) shows up as a new identity, not as a smaller counter.
SELECT s.name, t.name, i.name, os.object_id, os.index_id, os.partition_number, p.partition_id,
       os.leaf_insert_count, os.leaf_delete_count, os.leaf_update_count, os.leaf_ghost_count,
       os.leaf_allocation_count, os.leaf_page_merge_count,
       os.page_latch_wait_count, os.page_latch_wait_in_ms,
       os.row_lock_wait_count, os.row_lock_wait_in_ms
FROM sys.dm_db_index_operational_stats(DB_ID(), NULL, NULL, NULL) os
JOIN sys.tables t ON t.object_id = os.object_id
JOIN sys.schemas s ON s.schema_id = t.schema_id
LEFT JOIN sys.indexes i ON i.object_id = os.object_id AND i.index_id = os.index_id
LEFT JOIN sys.partitions p ON p.object_id = os.object_id AND p.index_id = os.index_id AND p.partition_number = os.partition_number
WHERE t.is_ms_shipped = 0
ORDER BY s.name, t.name, os.index_id, os.partition_number

-- name: sys_dm_io_virtual_file_stats
-- The database's log file(s) only: physical bytes, whole flushes padded to
-- the sector size.
SELECT f.file_id, f.name, vfs.num_of_writes, vfs.num_of_bytes_written, vfs.io_stall_write_ms
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) vfs
JOIN sys.database_files f ON f.file_id = vfs.file_id
WHERE f.type_desc = N'LOG'
ORDER BY f.file_id

-- name: sys_dm_os_performance_counters
-- https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql
-- object_name, counter_name and instance_name are nchar(128): blank-padded
-- to 128 characters. LIKE on Unicode data treats trailing blanks as
-- significant, so object_name LIKE N'%:Databases' matches no row of a real
-- server ('SQLServer:Databases' plus 109 blanks does not end in "Databases"):
-- RTRIM first (https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql,
-- "Pattern matching by using LIKE"). = ignores trailing blanks, so the
-- counter_name and instance_name equalities need none. The rows come back
-- padded; the collector trims them. The "/sec" counters are cumulative
-- (cntr_type 272696576): diff them. Object names carry the instance prefix
-- (SQLServer: or MSSQL$NAME:).
-- max_version: 1500000
SELECT object_name, counter_name, instance_name, cntr_value
FROM sys.dm_os_performance_counters
WHERE (RTRIM(object_name) LIKE N'%:Databases'
       AND counter_name IN (N'Log Bytes Flushed/sec', N'Log Flushes/sec')
       AND instance_name = DB_NAME())
   OR (RTRIM(object_name) LIKE N'%:Access Methods' AND counter_name = N'Page Splits/sec')

-- name: sys_dm_os_performance_counters
-- 2019+ and Azure: as above. Azure SQL Database files the database's
-- counters under its physical name, a GUID (sys.databases.physical_database_name,
-- 2019+ and Azure: https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-databases-transact-sql),
-- and an instance_name there can carry a suffix after the GUID: matched by
-- prefix, on Azure SQL Database only (EngineEdition 5), so that a boxed
-- server's "kc" never takes "kc2"'s rows. The collector prefers an exact
-- DB_NAME() row.
-- min_version: 1500000
SELECT object_name, counter_name, instance_name, cntr_value
FROM sys.dm_os_performance_counters
WHERE (RTRIM(object_name) LIKE N'%:Databases'
       AND counter_name IN (N'Log Bytes Flushed/sec', N'Log Flushes/sec')
       AND (instance_name = DB_NAME()
            OR (CONVERT(int, SERVERPROPERTY('EngineEdition')) = 5
                AND RTRIM(instance_name) LIKE (SELECT physical_database_name FROM sys.databases WHERE database_id = DB_ID()) + N'%')))
   OR (RTRIM(object_name) LIKE N'%:Access Methods' AND counter_name = N'Page Splits/sec')

-- name: sys_dm_os_wait_stats
-- https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-wait-stats-transact-sql
-- wait_type is nvarchar(60): no padding. VIEW SERVER STATE (VIEW SERVER
-- PERFORMANCE STATE on 2022+); Azure SQL Database reads sys.dm_db_wait_stats.
-- Last-page insert contention is PAGELATCH_EX (PAGELATCH_SH, _UP beside it),
-- data pages read from disk PAGEIOLATCH_SH/_EX/_UP/_NL/_KP/_DT, log flushes
-- WRITELOG (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-wait-stats-transact-sql#types-of-waits).
SELECT wait_type, waiting_tasks_count, wait_time_ms
FROM sys.dm_os_wait_stats
WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH', N'PAGELATCH_UP', N'WRITELOG', N'LOGBUFFER',
                    N'LOG_RATE_GOVERNOR', N'HADR_THROTTLE_LOG_RATE_GOVERNOR')
   OR wait_type LIKE N'PAGEIOLATCH[_]%' OR wait_type LIKE N'RBIO[_]RG[_]%'
ORDER BY wait_type

-- name: sys_dm_db_wait_stats
-- Azure SQL Database: the same columns, this database only; needs VIEW
-- DATABASE STATE on every service objective, where sys.dm_os_wait_stats needs
-- the server admin on Basic, S0, S1 and elastic pools
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-wait-stats-azure-sql-database).
SELECT wait_type, waiting_tasks_count, wait_time_ms
FROM sys.dm_db_wait_stats
WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH', N'PAGELATCH_UP', N'WRITELOG', N'LOGBUFFER',
                    N'LOG_RATE_GOVERNOR', N'HADR_THROTTLE_LOG_RATE_GOVERNOR')
   OR wait_type LIKE N'PAGEIOLATCH[_]%' OR wait_type LIKE N'RBIO[_]RG[_]%'
ORDER BY wait_type

-- name: fn_dblog_end_lsn
-- The last record of the active log; [Current LSN] is fixed-width hex
-- ("0000002a:000000f0:0001"), so the window is compared as text in the
-- format fn_dblog itself prints, with no conversion to get wrong.
SELECT MAX([Current LSN]) FROM sys.fn_dblog(NULL, NULL)

-- name: fn_dblog_min_lsn
SELECT MIN([Current LSN]) FROM sys.fn_dblog(NULL, NULL)

-- name: fn_dblog
-- Log records of this database between the two marks, per allocation unit
-- ("schema.table.index", "schema.table" for a heap, NULL for records on no
-- object such as commits and checkpoints). @p1 start (exclusive), @p2 end.
SELECT AllocUnitName, COUNT_BIG(*), SUM(CAST([Log Record Length] AS bigint))
FROM sys.fn_dblog(NULL, NULL)
WHERE [Current LSN] > @p1 AND [Current LSN] <= @p2
GROUP BY AllocUnitName

-- name: sys_dm_exec_query_stats
-- Per cached statement: https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-query-stats-transact-sql
-- (execution_count, total_rows (2008 R2+), total_logical_writes (pages
-- dirtied), total_elapsed_time in microseconds, creation_time: when the plan
-- was compiled; a row leaves with its plan). The statement's text is its
-- batch's, cut at the statement's byte offsets (UTF-16, so halved), as the
-- page shows; sys.dm_exec_sql_text's dbid is the database an ad hoc or
-- prepared statement was compiled in, so the rows are this database's.
SELECT CONVERT(varchar(130), qs.sql_handle, 2) + '/' + CAST(qs.statement_start_offset AS varchar(11)) + '/' + CONVERT(varchar(130), qs.plan_handle, 2),
       SUBSTRING(st.text, qs.statement_start_offset / 2 + 1,
                 (CASE qs.statement_end_offset WHEN -1 THEN DATALENGTH(st.text) ELSE qs.statement_end_offset END - qs.statement_start_offset) / 2 + 1),
       CONVERT(varchar(30), qs.creation_time, 126),
       qs.execution_count, qs.total_rows, qs.total_logical_writes, qs.total_elapsed_time
FROM sys.dm_exec_query_stats qs
CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st
WHERE st.dbid = DB_ID()

-- name: hadr_replicas
-- On an availability group's primary, this database's secondaries: one row
-- of sys.dm_hadr_database_replica_states per secondary database (is_local =
-- 0; the primary's own row is is_local = 1), VIEW SERVER STATE, VIEW SERVER
-- PERFORMANCE STATE on 2022+
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-hadr-database-replica-states-transact-sql).
-- sys.availability_replicas names them: replica_server_name nvarchar(256),
-- availability_mode_desc nvarchar(60) (ASYNCHRONOUS_COMMIT,
-- SYNCHRONOUS_COMMIT, CONFIGURATION_ONLY), rows visible with VIEW ANY
-- DEFINITION only, hence the LEFT JOIN and the replica_id beside the name
-- (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-availability-replicas-transact-sql).
SELECT ar.replica_server_name, CONVERT(nvarchar(36), rs.replica_id), ar.availability_mode_desc
FROM sys.dm_hadr_database_replica_states rs
LEFT JOIN sys.availability_replicas ar ON ar.replica_id = rs.replica_id
WHERE rs.database_id = DB_ID() AND rs.is_local = 0
ORDER BY 2

-- name: hadr_perf_counters
-- The copies' cumulative counters (cntr_value bigint; cntr_type int, 272696576
-- = PERF_COUNTER_BULK_COUNT, whose "/sec" value is a running total: "For
-- per-second counters, this value is cumulative ... The difference between
-- any two successive sample values is equal to the rate for the time
-- interval used",
-- https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql,
-- https://learn.microsoft.com/windows/win32/wmisdk/countertype-qualifier).
-- The collector diffs only rows of that type. The name columns are
-- nchar(128), hence RTRIM before LIKE (see sys_dm_os_performance_counters).
-- SQLServer:Availability Replica 'Bytes Sent to Replica/sec': bytes sent to
-- each remote replica, 2016+ uncompressed for a synchronous one and before
-- compression for an asynchronous one
-- (https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-availability-replica),
-- the sum of every database's messages queued for that replica
-- (https://learn.microsoft.com/sql/database-engine/availability-groups/windows/monitor-performance-for-always-on-availability-groups).
-- Its instance_name format is not documented: the collector matches the
-- replica's name or "<group>:<replica>" and says when neither is there.
-- SQLServer:Database Replica, instance_name the database: on the primary
-- 'Mirrored Write Transaction/sec' (so spelled on the page; the Database
-- Mirroring object's counter of that meaning is 'Mirrored Write
-- Transactions/sec', so both spellings are asked for) and 'Transaction
-- Delay' (milliseconds waited for commit acknowledgments; the page divides
-- it by the former, so both are totals), on a secondary 'Log Bytes
-- Received/sec' and 'Redone Bytes/sec'
-- (https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-database-replica).
-- VIEW SERVER STATE, VIEW SERVER PERFORMANCE STATE on 2022+.
SELECT object_name, counter_name, instance_name, cntr_value, cntr_type
FROM sys.dm_os_performance_counters
WHERE (RTRIM(object_name) LIKE N'%:Availability Replica' AND counter_name = N'Bytes Sent to Replica/sec')
   OR (RTRIM(object_name) LIKE N'%:Database Replica'
       AND counter_name IN (N'Mirrored Write Transactions/sec', N'Mirrored Write Transaction/sec', N'Transaction Delay',
                            N'Log Bytes Received/sec', N'Redone Bytes/sec')
       AND instance_name = DB_NAME())

-- name: hadr_lag_sample
-- The queues and rates of this database's secondaries, as the primary knows
-- them (the page: "the values have only local relevance"), all bigint and
-- NULL when a secondary has not reported: log_send_queue_size (KB of the
-- primary's log not yet sent), redo_queue_size (KB received, not yet
-- redone), log_send_rate (KB/s, "during last active period"), redo_rate
-- (KB/s, the log redone since start over the time redo ran),
-- secondary_lag_seconds (2016+: seconds since the primary hardened the
-- earliest log the secondary has not hardened)
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-hadr-database-replica-states-transact-sql).
-- Names as in hadr_replicas.
SELECT ar.replica_server_name, CONVERT(nvarchar(36), rs.replica_id),
       rs.log_send_queue_size, rs.log_send_rate, rs.redo_queue_size, rs.redo_rate, rs.secondary_lag_seconds
FROM sys.dm_hadr_database_replica_states rs
LEFT JOIN sys.availability_replicas ar ON ar.replica_id = rs.replica_id
WHERE rs.database_id = DB_ID() AND rs.is_local = 0

-- name: server_utc
-- The server's clock in UTC (datetime2(7),
-- https://learn.microsoft.com/sql/t-sql/functions/sysutcdatetime-transact-sql),
-- the clock sys.dm_db_resource_stats.end_time is kept in: the window is
-- matched to its rows without this machine's clock.
SELECT SYSUTCDATETIME()

-- name: sys_dm_db_resource_stats
-- Azure SQL Database: one row per 15 seconds for about an hour (since the
-- last failover, if later), end_time datetime in UTC, avg_log_write_percent
-- decimal(5,2) "Average transaction log writes (in MB/s) as percentage of
-- the service tier limit"; needs VIEW DATABASE STATE
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-resource-stats-azure-sql-database).
-- The rows whose interval (end_time - 15 s, end_time] overlaps the window
-- between @p1 and @p2 (server_utc marks): COUNT_BIG is bigint, MAX the
-- column's decimal(5,2), AVG of it decimal(38,6), both NULL over no row.
SELECT COUNT_BIG(*), MAX(avg_log_write_percent), AVG(avg_log_write_percent), MIN(end_time), MAX(end_time)
FROM sys.dm_db_resource_stats
WHERE end_time > @p1 AND end_time < DATEADD(second, 15, @p2)
