-- The login `writeamp check` applies the built-in workload's migration as
-- (PostgreSQL): created for the run, owning the workload's schema and
-- holding no other privilege, so the server refuses any statement that
-- names another object. A separate login, not SET ROLE: a session can
-- always RESET ROLE back to its session user.
-- https://www.postgresql.org/docs/current/sql-createrole.html
-- https://www.postgresql.org/docs/current/role-removal.html (REASSIGN OWNED, DROP OWNED)

-- name: confine_can
-- CREATE ROLE needs CREATEROLE or superuser.
-- https://www.postgresql.org/docs/current/view-pg-roles.html
SELECT r.rolsuper, r.rolcreaterole, current_user::text FROM pg_roles r WHERE r.rolname = current_user

-- name: confine_stale
-- Logins of earlier checks that were killed before dropping theirs: no
-- session, and created more than an hour ago (VALID UNTIL is set a day
-- ahead at creation). DROP ROLE itself refuses one that still owns or holds
-- anything in any database.
-- https://www.postgresql.org/docs/current/view-pg-stat-activity.html
SELECT r.rolname::text FROM pg_roles r
WHERE r.rolname LIKE 'writeamp\_mig\_%' AND r.rolvaliduntil < now() + interval '23 hours'
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.usename = r.rolname)

-- name: confine_create
-- VALID UNTIL bounds a login a killed check could not drop; the password
-- is random and never printed.
CREATE ROLE {{login}} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 2 PASSWORD {{password}} VALID UNTIL {{until}}

-- name: confine_member
-- A non-superuser may hand objects to a role, and take them back, only as a
-- member of it.
GRANT {{login}} TO CURRENT_USER

-- name: confine_connect
-- Only when PUBLIC's CONNECT was revoked; DROP OWNED revokes it again.
GRANT CONNECT ON DATABASE {{database}} TO {{login}}

-- name: confine_may_connect
SELECT has_database_privilege($1, current_database(), 'CONNECT')

-- name: confine_give_schema
ALTER SCHEMA {{schema}} OWNER TO {{login}}

-- name: confine_relations
-- The workload's relations, handed over one by one (ALTER TABLE also
-- serves views and sequences); indexes, TOAST tables and sequences owned
-- by a column follow their table.
-- https://www.postgresql.org/docs/current/sql-altertable.html
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
ORDER BY 1

-- name: confine_give_relation
ALTER TABLE {{relation}} OWNER TO {{login}}

-- name: confine_reach
-- What the login could change outside the schema through grants to PUBLIC
-- (or to it): tables and views it may write, sequences it may advance,
-- SECURITY DEFINER functions it may call. Any of these is refused before
-- the migration runs: the server would let the migration through there.
-- https://www.postgresql.org/docs/current/functions-info.html#FUNCTIONS-INFO-ACCESS-TABLE
SELECT 'table ' || c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname <> $2 AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND has_table_privilege($1, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
UNION ALL
SELECT 'sequence ' || c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname <> $2 AND c.relkind = 'S' AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege($1, c.oid, 'USAGE, UPDATE') END
UNION ALL
SELECT 'function ' || p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname NOT IN ($2, 'pg_catalog', 'information_schema') AND p.prosecdef AND has_function_privilege($1, p.oid, 'EXECUTE')
ORDER BY 1
LIMIT 20

-- name: confine_search_path
SELECT set_config('search_path', $1, false)

-- name: confine_sessions
SELECT pid::text FROM pg_stat_activity WHERE usename = $1

-- name: confine_terminate
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1

-- name: confine_outside
-- What the login owns outside the schema once its session has ended: the
-- server's own record of ownership (pg_shdepend), whatever kind of object
-- it is; pg_identify_object names its schema (NULL for objects outside any
-- schema, such as another schema or a large object).
-- https://www.postgresql.org/docs/current/catalog-pg-shdepend.html
-- https://www.postgresql.org/docs/current/functions-info.html (pg_identify_object)
SELECT o.type || ' ' || o.identity
FROM pg_shdepend s, LATERAL pg_identify_object(s.classid, s.objid, s.objsubid) o
WHERE s.refclassid = 'pg_authid'::regclass AND s.deptype = 'o'
  AND s.refobjid = (SELECT oid FROM pg_roles WHERE rolname = $1)
  AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND o.schema IS DISTINCT FROM $2
  AND NOT (s.classid = 'pg_namespace'::regclass AND o.identity = quote_ident($2))
ORDER BY 1

-- name: confine_take_schema
ALTER SCHEMA {{schema}} OWNER TO CURRENT_USER

-- name: confine_reassign
REASSIGN OWNED BY {{login}} TO CURRENT_USER

-- name: confine_drop_owned
DROP OWNED BY {{login}}

-- name: confine_drop
DROP ROLE {{login}}
