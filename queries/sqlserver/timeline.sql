-- The interval sampler's one statement (measure/run --interval): this
-- database's log bytes flushed and committed write transactions, both
-- cumulative despite their "/sec" names, from the SQLServer:Databases object
-- (https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-databases-object:
-- "Log Bytes Flushed/sec: total number of log bytes flushed"; "Write
-- Transactions/sec: number of transactions that wrote to the database and
-- committed"). Padding and the Azure physical name are handled as in
-- sys_dm_os_performance_counters (collectors.sql). Needs what that needs.

-- name: timeline
-- max_version: 1500000
SELECT object_name, counter_name, instance_name, cntr_value
FROM sys.dm_os_performance_counters
WHERE RTRIM(object_name) LIKE N'%:Databases'
  AND counter_name IN (N'Log Bytes Flushed/sec', N'Write Transactions/sec')
  AND instance_name = DB_NAME()

-- name: timeline
-- min_version: 1500000
SELECT object_name, counter_name, instance_name, cntr_value
FROM sys.dm_os_performance_counters
WHERE RTRIM(object_name) LIKE N'%:Databases'
  AND counter_name IN (N'Log Bytes Flushed/sec', N'Write Transactions/sec')
  AND (instance_name = DB_NAME()
       OR (CONVERT(int, SERVERPROPERTY('EngineEdition')) = 5
           AND RTRIM(instance_name) LIKE (SELECT physical_database_name FROM sys.databases WHERE database_id = DB_ID()) + N'%'))
