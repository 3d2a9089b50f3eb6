-- The user `writeamp check` applies the built-in workload's migration as
-- (SQL Server): a user without login created for the run that owns the
-- workload's schema, with the database-level CREATE permissions an object
-- in it needs and nothing else. Owning the schema breaks ownership chains
-- to the user's dbo objects (a view or procedure the migration creates runs
-- with its permissions, not dbo's). The session impersonates it WITH NO
-- REVERT, so no statement of the migration can return to the login, and
-- the session is closed afterwards.
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/create-user-transact-sql
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/execute-as-transact-sql (WITH NO REVERT)
-- https://learn.microsoft.com/en-us/sql/t-sql/statements/alter-authorization-transact-sql
-- https://learn.microsoft.com/en-us/sql/relational-databases/security/ownership-chains

-- name: confine_owner
-- The schema's owner before, to give it back.
-- https://learn.microsoft.com/en-us/sql/relational-databases/system-catalog-views/schemas-catalog-views-sys-schemas
SELECT USER_NAME(principal_id) FROM sys.schemas WHERE name = @p1

-- name: confine_create
-- CREATE USER needs ALTER ANY USER; the GRANTs and ALTER AUTHORIZATION need
-- CONTROL of the database (db_owner).
CREATE USER {{user}} WITHOUT LOGIN WITH DEFAULT_SCHEMA = {{schema}};
ALTER AUTHORIZATION ON SCHEMA::{{schema}} TO {{user}};
GRANT CREATE TABLE, CREATE VIEW, CREATE PROCEDURE, CREATE FUNCTION, CREATE TYPE, CREATE SYNONYM TO {{user}}

-- name: confine_enter
EXECUTE AS USER = N'{{name}}' WITH NO REVERT

-- name: confine_return
ALTER AUTHORIZATION ON SCHEMA::{{schema}} TO {{owner}}

-- name: confine_drop
DROP USER IF EXISTS {{user}}
