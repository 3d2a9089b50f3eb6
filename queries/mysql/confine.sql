-- The account `writeamp check` applies the built-in workload's migration as
-- (MySQL/MariaDB): created for the run, granted only the workload's database
-- (a MySQL schema is a database), so the server refuses any statement that
-- names another database's objects. A session cannot shed its account's
-- privileges (SET ROLE only adds), hence a new account, not a role.
-- https://dev.mysql.com/doc/refman/8.0/en/create-user.html
-- https://mariadb.com/kb/en/create-user/
-- https://mariadb.com/kb/en/grant/#database-privileges

-- name: confine_can
-- CREATE USER is a global privilege; GRANT of the workload's database needs
-- the grant option on it, which the login that created it has by ALL ON *.*
-- WITH GRANT OPTION or a grant on writeamp's databases.
-- https://dev.mysql.com/doc/refman/8.0/en/information-schema-user-privileges-table.html
SELECT CURRENT_USER(), USER(),
  (SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES
   WHERE PRIVILEGE_TYPE = 'CREATE USER'
     AND GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), ''''))

-- name: confine_create
-- The host is the client's as the server saw this session, so the new
-- account is the one its next connection from here matches.
CREATE USER {{account}} IDENTIFIED BY {{password}} WITH MAX_USER_CONNECTIONS 2

-- name: confine_grant
GRANT ALL PRIVILEGES ON {{schema}}.* TO {{account}}

-- name: confine_sessions
-- https://mariadb.com/kb/en/information-schema-processlist-table/
SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?

-- name: confine_kill
KILL CONNECTION {{id}}

-- name: confine_stale
-- Accounts of checks killed before they could drop theirs: no session, and
-- granted a workload database that no longer exists (a fresh account of a
-- running check has its database).
-- https://mariadb.com/kb/en/mysql-db-table/
SELECT d.User, d.Host FROM mysql.db d
WHERE d.User LIKE 'writeamp\_mig\_%'
  AND NOT EXISTS (SELECT 1 FROM information_schema.SCHEMATA s WHERE s.SCHEMA_NAME = REPLACE(d.Db, '\\_', '_'))
  AND NOT EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.USER = d.User)

-- name: confine_drop
DROP USER IF EXISTS {{account}}

-- name: confine_reach
-- What every account may change outside the workload's database through
-- grants to PUBLIC (MariaDB 10.11+; MySQL has no PUBLIC and returns no
-- row): there the server would not keep the migration inside. Reading is
-- refused before the migration runs.
-- https://mariadb.com/kb/en/grant/#grant-to-public
-- https://mariadb.com/kb/en/information-schema-schema_privileges-table/
SELECT CONCAT(PRIVILEGE_TYPE, ' on ', TABLE_SCHEMA, '.*') FROM information_schema.SCHEMA_PRIVILEGES
WHERE GRANTEE = '''PUBLIC''@''''' AND PRIVILEGE_TYPE NOT IN ('SELECT', 'SHOW VIEW') AND TABLE_SCHEMA <> ?
UNION ALL
SELECT CONCAT(PRIVILEGE_TYPE, ' on ', TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLE_PRIVILEGES
WHERE GRANTEE = '''PUBLIC''@''''' AND PRIVILEGE_TYPE NOT IN ('SELECT', 'SHOW VIEW') AND TABLE_SCHEMA <> ?
UNION ALL
SELECT CONCAT(PRIVILEGE_TYPE, ' on ', TABLE_SCHEMA, '.', TABLE_NAME, '.', COLUMN_NAME) FROM information_schema.COLUMN_PRIVILEGES
WHERE GRANTEE = '''PUBLIC''@''''' AND PRIVILEGE_TYPE NOT IN ('SELECT') AND TABLE_SCHEMA <> ?
LIMIT 20
