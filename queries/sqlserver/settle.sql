-- SQL Server: preparing the server around a measured window.

-- name: checkpoint
CHECKPOINT

-- name: hadr_tail
-- After the workload: the log the copies of this database have not yet been
-- sent or have not yet redone (KB, bigint, NULL when not reported), from
-- sys.dm_hadr_database_replica_states: on a primary its secondaries' rows,
-- on a secondary its own (every row but a primary's own). VIEW SERVER
-- STATE, VIEW SERVER PERFORMANCE STATE on 2022+
-- (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-hadr-database-replica-states-transact-sql).
SELECT COALESCE(ar.replica_server_name, CONVERT(nvarchar(36), rs.replica_id)), rs.log_send_queue_size, rs.redo_queue_size
FROM sys.dm_hadr_database_replica_states rs
LEFT JOIN sys.availability_replicas ar ON ar.replica_id = rs.replica_id
WHERE rs.database_id = DB_ID() AND NOT (rs.is_local = 1 AND rs.is_primary_replica = 1)
