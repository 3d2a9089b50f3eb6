-- Oracle: the schemas and tables a --schema/--table scope is checked against
-- before measuring. ALL_USERS.ORACLE_MAINTAINED (12.1+) leaves out SYS,
-- SYSTEM and the other schemas Oracle creates
-- (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/ALL_USERS.html).

-- name: scope_schemas
SELECT username FROM all_users WHERE oracle_maintained = 'N' ORDER BY username

-- name: scope_tables
SELECT t.owner, t.table_name FROM all_tables t JOIN all_users u ON u.username = t.owner
WHERE u.oracle_maintained = 'N' ORDER BY t.owner, t.table_name
