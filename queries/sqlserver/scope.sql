-- SQL Server: the schemas and tables a --schema/--table scope is checked
-- against before measuring, and how this database compares their names.

-- name: scope_schemas
-- schema_id 16384 and up are the fixed database roles' schemas (db_owner ...).
SELECT name FROM sys.schemas WHERE schema_id < 16384 AND name NOT IN (N'sys', N'INFORMATION_SCHEMA', N'guest') ORDER BY name

-- name: scope_tables
SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id
WHERE t.is_ms_shipped = 0 ORDER BY s.name, t.name

-- name: identifier_case
-- A literal in a batch takes the current database's default collation
-- ("Collation precedence", coercible-default:
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/collation-precedence-transact-sql),
-- which is also the collation of the names in its catalog views: 1 when it
-- tells 'a' from 'A'.
SELECT CASE WHEN N'a' = N'A' THEN 0 ELSE 1 END
