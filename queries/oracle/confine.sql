-- The login `writeamp check` applies the built-in workload's migration as
-- (Oracle): the workload's own user, which owns its schema and nothing else,
-- given a random password and CREATE SESSION for the apply step only. A
-- session logged in as it has its own privileges, not the login's: ALTER
-- SESSION SET CURRENT_SCHEMA only resolves names and keeps every privilege
-- of the session's user. Creating objects in one's own schema needs the
-- CREATE privileges below (never their ANY forms).
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/ALTER-USER.html
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/GRANT.html (system privileges)

-- name: confine_password
-- Needs ALTER USER.
ALTER USER {{user}} IDENTIFIED BY "{{password}}" ACCOUNT UNLOCK

-- name: confine_grant
-- Needs these privileges WITH ADMIN OPTION, or GRANT ANY PRIVILEGE.
GRANT CREATE SESSION, CREATE TABLE, CREATE VIEW, CREATE SEQUENCE, CREATE PROCEDURE, CREATE TRIGGER, CREATE TYPE, CREATE SYNONYM TO {{user}}

-- name: confine_revoke
REVOKE CREATE SESSION FROM {{user}}

-- name: confine_lock
-- Back to a user nobody can log in as (the workload's lifecycle drops it).
ALTER USER {{user}} NO AUTHENTICATION

-- name: confine_sessions
-- https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/V-SESSION.html
SELECT sid || ',' || serial# FROM v$session WHERE username = :1

-- name: confine_kill
ALTER SYSTEM KILL SESSION '{{sid}}' IMMEDIATE
