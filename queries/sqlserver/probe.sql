-- SQL Server: what the server is and what this login may read. Every block
-- here must work for a login with no extra permission: the probe decides
-- which collectors can run, it must not be the thing that fails.

-- name: probe
-- tempdb is recreated at every start, and sys.databases is readable by
-- everyone, so its create_date is the start time without VIEW SERVER STATE
-- (sys.dm_os_sys_info.sqlserver_start_time needs it). NULL on Azure SQL
-- Database, where tempdb is not listed in a user database.
-- CHECKPOINT may be run by sysadmin, db_owner and db_backupoperator
-- (https://learn.microsoft.com/sql/t-sql/language-elements/checkpoint-transact-sql#permissions).
-- ServiceObjective is Azure SQL Database's (Basic, S0..S12, P1.., ElasticPool;
-- NULL elsewhere): on Basic, S0, S1 and in elastic pools the instance DMVs
-- need the server admin, the Microsoft Entra admin or ##MS_ServerStateReader##
-- (https://learn.microsoft.com/sql/t-sql/functions/databasepropertyex-transact-sql,
-- https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql#permissions).
-- The server admin and the Entra admin enter every user database as dbo
-- (USER_NAME()); IS_SRVROLEMEMBER answers NULL for a role the server lacks.
SELECT CONVERT(nvarchar(128), SERVERPROPERTY('ProductVersion')),
       CONVERT(int, SERVERPROPERTY('EngineEdition')),
       CONVERT(nvarchar(128), SERVERPROPERTY('ServerName')),
       DB_NAME(),
       SUSER_SNAME(),
       USER_NAME(),
       IS_SRVROLEMEMBER('sysadmin'),
       IS_MEMBER('db_owner'),
       IS_MEMBER('db_backupoperator'),
       (SELECT create_date FROM sys.databases WHERE name = N'tempdb'),
       (SELECT recovery_model_desc FROM sys.databases WHERE database_id = DB_ID()),
       CONVERT(nvarchar(32), DATABASEPROPERTYEX(DB_NAME(), 'ServiceObjective')),
       IS_SRVROLEMEMBER('##MS_ServerStateReader##')

-- name: hadr_role
-- Which copy of the database this connection is on, from what every login
-- may read (the current database's row of sys.databases is always visible:
-- https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-databases-transact-sql#permissions).
-- replica_id (uniqueidentifier) is the local replica of the availability
-- group the database is in, NULL when it is in none (2012+ and Azure SQL
-- Database); is_in_standby (bit) is a database read-only for restore log, a
-- log-shipping standby (same page). DATABASEPROPERTYEX 'Updateability'
-- (nvarchar in a sql_variant) answers READ_ONLY on a read-only replica
-- (https://learn.microsoft.com/azure/azure-sql/database/read-scale-out#verify-that-a-connection-is-to-a-read-only-replica,
-- https://learn.microsoft.com/sql/t-sql/functions/databasepropertyex-transact-sql),
-- while an availability database is read-write on its primary: a read-only
-- database cannot join a group
-- (https://learn.microsoft.com/sql/database-engine/availability-groups/windows/prereqs-restrictions-recommendations-always-on-availability#PrerequisitesForDbs).
-- sys.availability_replicas names the secondaries only to VIEW ANY
-- DEFINITION (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-availability-replicas-transact-sql#permissions);
-- HAS_PERMS_BY_NAME returns int: 1, 0, or NULL for a permission or class it
-- does not know (https://learn.microsoft.com/sql/t-sql/functions/has-perms-by-name-transact-sql).
SELECT CASE WHEN d.replica_id IS NULL THEN 0 ELSE 1 END,
       d.is_in_standby,
       CONVERT(nvarchar(128), DATABASEPROPERTYEX(DB_NAME(), 'Updateability')),
       HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW ANY DEFINITION')
FROM sys.databases d
WHERE d.database_id = DB_ID()

-- name: permissions
-- 2016-2019 name the DMV permissions VIEW DATABASE STATE / VIEW SERVER STATE.
-- max_version: 1600000
SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'VIEW DATABASE STATE'),
       HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE'),
       HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'VIEW DATABASE STATE')

-- name: permissions
-- 2022+ and Azure split them: the PERFORMANCE STATE permissions are what the
-- DMVs check (VIEW ... STATE still implies them).
-- min_version: 1600000
-- The third column is VIEW DATABASE STATE itself, which Azure SQL Database's
-- sys.dm_db_wait_stats and instance DMVs name on their pages.
SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'VIEW DATABASE PERFORMANCE STATE'),
       HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE'),
       HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'VIEW DATABASE STATE')
