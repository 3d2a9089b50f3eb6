-- What `writeamp check` sends of its own around a user's migration (PostgreSQL).

-- name: set_search_path
SELECT set_config('search_path', $1, false)

-- name: reset_search_path
RESET search_path

-- name: rollback
ROLLBACK

-- name: check_catalog
-- The database's definitions, one line per fact, so the catalog before a
-- check and after its restore compare as text: schemas, relations (kind and
-- options), columns (type, NOT NULL, default), indexes, constraints,
-- triggers, views' definitions, functions, types and extensions. Not
-- compared: privileges, ownership, comments, statistics and data. System
-- schemas and writeamp's own (writeamp_rt_*: the workload's, dropped by their
-- own lifecycle) are left out, as are the members of extensions and an
-- extension writeamp created for a window (its comment says so, and its own
-- ledger drops it). Names are quoted as PostgreSQL prints them.
-- https://www.postgresql.org/docs/current/catalogs.html
-- https://www.postgresql.org/docs/current/functions-info.html (pg_get_*def, format_type)
WITH ns AS (
  SELECT oid, nspname FROM pg_namespace
  WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' AND nspname NOT LIKE 'writeamp\_rt\_%' AND nspname NOT LIKE 'writeamp\_undo\_%'
), member AS (
  SELECT classid, objid FROM pg_depend WHERE deptype = 'e'
)
SELECT 'schema ' || quote_ident(nspname) FROM ns
UNION ALL
SELECT 'relation ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ' kind ' || c.relkind::text
       || coalesce(' options ' || array_to_string(c.reloptions, ','), '')
FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
WHERE c.relkind <> 't' AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_class'::regclass AND m.objid = c.oid)
UNION ALL
SELECT 'column ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || '.' || quote_ident(a.attname) || ' #' || a.attnum
       || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
       || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_class'::regclass AND m.objid = c.oid)
UNION ALL
SELECT 'index ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ': ' || pg_get_indexdef(c.oid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN ns ON ns.oid = c.relnamespace
UNION ALL
SELECT 'constraint ' || quote_ident(ns.nspname) || '.' || quote_ident(coalesce(c.relname, '-')) || '.' || quote_ident(k.conname)
       || ': ' || pg_get_constraintdef(k.oid)
FROM pg_constraint k JOIN ns ON ns.oid = k.connamespace LEFT JOIN pg_class c ON c.oid = k.conrelid
UNION ALL
SELECT 'trigger ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ': ' || pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ns ON ns.oid = c.relnamespace
WHERE NOT t.tgisinternal
UNION ALL
SELECT 'view ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ': ' || pg_get_viewdef(c.oid)
FROM pg_class c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind IN ('v', 'm')
UNION ALL
SELECT 'function ' || quote_ident(ns.nspname) || '.' || quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ')'
       || ' kind ' || p.prokind::text || coalesce(' returns ' || pg_get_function_result(p.oid), '')
FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_proc'::regclass AND m.objid = p.oid)
UNION ALL
SELECT 'type ' || quote_ident(ns.nspname) || '.' || quote_ident(t.typname) || ' kind ' || t.typtype::text
       || CASE WHEN t.typtype = 'e' THEN ' (' || (SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid) || ')' ELSE '' END
FROM pg_type t JOIN ns ON ns.oid = t.typnamespace
WHERE t.typtype IN ('e', 'd', 'r', 'm', 'b') AND t.typelem = 0
  AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_type'::regclass AND m.objid = t.oid)
UNION ALL
SELECT 'extension ' || quote_ident(e.extname) || ' ' || e.extversion
FROM pg_extension e WHERE coalesce(obj_description(e.oid, 'pg_extension'), '') NOT LIKE 'writeamp: %'
ORDER BY 1

-- name: clone_requirements
-- What `check --clone` needs before it copies the database ($1): CREATEDB
-- (or superuser), the right to copy it (superuser, its owner, or any
-- CREATEDB role when the database is a template: datistemplate), no other
-- session connected to it during the copy, and its size (the disk each copy
-- takes). pg_stat_activity lists other users' sessions with their database.
-- https://www.postgresql.org/docs/current/manage-ag-templatedbs.html
-- https://www.postgresql.org/docs/current/sql-createdatabase.html
SELECT r.rolsuper, r.rolcreatedb, d.datistemplate, pg_has_role(d.datdba, 'USAGE'),
       (SELECT count(*) FROM pg_stat_activity a WHERE a.datname = d.datname AND a.pid <> pg_backend_pid()),
       pg_database_size(d.oid)
FROM pg_database d, pg_roles r
WHERE d.datname = $1 AND r.rolname = current_user

-- name: clone_create
-- 13 and 14 copy the files (their only strategy).
-- max_version: 150000
CREATE DATABASE {{clone}} TEMPLATE {{template}}

-- name: clone_create
-- 15+ would log every block of the copy to the WAL by default (WAL_LOG);
-- FILE_COPY copies the files after a checkpoint, which writes far less WAL
-- for a database of any size.
-- min_version: 150000
CREATE DATABASE {{clone}} TEMPLATE {{template}} STRATEGY FILE_COPY

-- name: clone_drop
-- WITH (FORCE) (13+) ends sessions still connected, e.g. a command that was
-- interrupted, so the copy goes whatever happened.
DROP DATABASE IF EXISTS {{clone}} WITH (FORCE)

-- name: clone_count
SELECT count(*) FROM pg_database WHERE datname LIKE $1

-- name: object_exists
-- Whether what a migration's CREATE … IF NOT EXISTS or DROP … IF EXISTS
-- names is there before check applies anything ($1 kind, $2 schema or '',
-- $3 name, $4 table or '' for an index or a column, $5 true for CREATE).
-- CREATE … IF NOT EXISTS does nothing "if a relation with the same name
-- already exists" in the schema it would create it in: the one named, else
-- the first existing schema of search_path (current_schema()), for an index
-- its table's schema; so it looks there, at every kind of relation. DROP …
-- IF EXISTS drops the first match on search_path: to_regclass/to_regtype,
-- which return NULL for a missing name (or schema) instead of an error.
-- https://www.postgresql.org/docs/current/sql-createtable.html
-- https://www.postgresql.org/docs/current/sql-createindex.html
-- https://www.postgresql.org/docs/current/functions-info.html (current_schema, to_regclass, to_regtype)
SELECT CASE $1::text
  WHEN 'relation' THEN CASE WHEN $5::bool
    THEN EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relname = $3::text AND n.nspname = coalesce(nullif($2::text, ''), current_schema()))
    ELSE to_regclass(concat(quote_ident(nullif($2::text, '')) || '.', quote_ident($3::text))) IS NOT NULL END
  WHEN 'index' THEN EXISTS (SELECT 1 FROM pg_class c
    WHERE c.relname = $3::text
      AND c.relnamespace = (SELECT t.relnamespace FROM pg_class t
                            WHERE t.oid = to_regclass(concat(quote_ident(nullif($2::text, '')) || '.', quote_ident($4::text)))))
  WHEN 'column' THEN EXISTS (SELECT 1 FROM pg_attribute a
    WHERE a.attrelid = to_regclass(concat(quote_ident(nullif($2::text, '')) || '.', quote_ident($4::text)))
      AND a.attname = $3::text AND a.attnum > 0 AND NOT a.attisdropped)
  WHEN 'schema' THEN EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $3::text)
  WHEN 'extension' THEN EXISTS (SELECT 1 FROM pg_extension WHERE extname = $3::text)
  WHEN 'type' THEN to_regtype(concat(quote_ident(nullif($2::text, '')) || '.', quote_ident($3::text))) IS NOT NULL
END

-- name: clone_lock
-- Held by check --clone on its own session, from before the first copy to
-- after the last is dropped, named after the run (writeamp:writeamp_ck_<run>):
-- a session-level advisory lock ends with the session, however the process
-- ends, so a copy whose run's lock is free was left by a check that is gone.
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS
SELECT pg_advisory_lock(hashtextextended($1, 0))

-- name: clone_unlock
SELECT pg_advisory_unlock(hashtextextended($1, 0))

-- name: clone_mark
-- The copy's owner marker: what made it, for which run (and so which lock).
-- COMMENT ON DATABASE takes no parameter: {{marker}} is a quoted literal.
-- https://www.postgresql.org/docs/current/sql-comment.html
COMMENT ON DATABASE {{clone}} IS {{marker}}

-- name: clone_survey
-- Copies left by check --clone (writeamp_ck_<run>_<side><n>): the marker,
-- whether the run's lock is held (pg_locks lists every database's advisory
-- locks; a bigint key is classid << 32 | objid with objsubid 1), the
-- sessions connected to the copy, and its size where the login may connect.
-- https://www.postgresql.org/docs/current/view-pg-locks.html
-- https://www.postgresql.org/docs/current/functions-info.html (shobj_description, has_database_privilege)
SELECT d.datname, coalesce(shobj_description(d.oid, 'pg_database'), ''),
       EXISTS (SELECT 1 FROM pg_locks l
               WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                 AND ((l.classid::int8 << 32) | l.objid::int8)
                     = hashtextextended('writeamp:' || substring(d.datname FROM '^writeamp_ck_[0-9a-f]{8}'), 0)),
       (SELECT count(*) FROM pg_stat_activity a WHERE a.datname = d.datname),
       CASE WHEN has_database_privilege(d.oid, 'CONNECT') THEN pg_database_size(d.oid) END
FROM pg_database d
WHERE d.datname ~ '^writeamp_ck_[0-9a-f]{8}_[ab][0-9]+$'
ORDER BY 1

-- name: clone_drop_left
-- A copy whose check is gone: without FORCE, so a session that connected
-- since the survey makes it fail instead of being cut off.
DROP DATABASE {{clone}}

-- name: lock_timeout
-- How long the migration's and the undo's statements wait for a lock
-- (--lock-timeout), on their own session only; 0 waits as long as it takes.
-- https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT
-- (a lock not granted in time fails the statement with SQLSTATE 55P03).
SELECT set_config('lock_timeout', '{{ms}}ms', false)

-- name: lock_timeout_reset
-- A pooled session that served one of check's bounded reads goes back to
-- the pool as it came (the workload's statements keep the server's value).
RESET lock_timeout

-- name: check_session_id
SELECT pg_backend_pid()::text

-- name: blocking_sessions
-- Who the session waits for, sampled while a statement runs:
-- pg_blocking_pids (https://www.postgresql.org/docs/current/functions-info.html)
-- and pg_stat_activity; PUBLIC sees other users' pid and user, the query
-- text only of its own sessions (or with pg_read_all_stats).
SELECT pid::text, COALESCE(usename, ''), COALESCE(state, ''), COALESCE(left(query, 200), '')
FROM pg_stat_activity WHERE pid = ANY (pg_blocking_pids($1::int)) ORDER BY pid

-- name: clone_original_writes
-- Rows written in the user's database itself while check --clone measures
-- copies of it: the command must reach the copy, and a write to the
-- original (its arguments or environment still naming it) fails the check.
-- Per user table (pg_stat_user_tables' n_tup_ins/upd/del count every
-- session's DML: https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-ALL-TABLES-VIEW);
-- not pg_stat_database's totals, which also count the catalog rows that
-- autovacuum's ANALYZE writes.
SELECT schemaname || '.' || relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables

-- name: begin
BEGIN

-- name: commit
COMMIT

-- name: check_tables
-- The user's tables with the columns they have now (quoted) and their size,
-- for the row checksums that prove an undo changed no rows it should not.
-- https://www.postgresql.org/docs/current/catalog-pg-attribute.html
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-DBSIZE (pg_relation_size)
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), quote_ident(n.nspname) || '.' || quote_ident(c.relname),
       string_agg(quote_ident(a.attname), ',' ORDER BY a.attnum), pg_relation_size(c.oid)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind = 'r' AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'writeamp\_rt\_%' AND n.nspname NOT LIKE 'writeamp\_undo\_%'
GROUP BY 1, 2, 4

-- name: table_checksum
-- A table's row count and an order-independent checksum of its rows over
-- the columns it had before ({{columns}}): the sum of each row's md5 (its
-- first 60 bits, as numeric so the sum cannot overflow).
-- https://www.postgresql.org/docs/current/functions-string.html (md5)
SELECT count(*), coalesce(sum(('x' || substr(md5(ROW({{columns}})::text), 1, 15))::bit(60)::bigint::numeric), 0)::text FROM {{table}}

-- name: check_catalog_more
-- What the catalog lines above leave out and a restore must still put back:
-- persistence (UNLOGGED), owners and privileges (ACLs) of relations,
-- schemas, functions and sequences, row-level security and its policies,
-- comments, sequence options, routine bodies, and the database- and
-- role-level settings (ALTER DATABASE/ROLE … SET). Not compared: sequence
-- values (the workload's inserts advance them).
-- https://www.postgresql.org/docs/current/catalog-pg-class.html (relpersistence, relacl, relrowsecurity)
-- https://www.postgresql.org/docs/current/catalog-pg-policy.html
-- https://www.postgresql.org/docs/current/catalog-pg-sequence.html
-- https://www.postgresql.org/docs/current/catalog-pg-db-role-setting.html
-- https://www.postgresql.org/docs/current/catalog-pg-description.html
WITH ns AS (
  SELECT oid, nspname FROM pg_namespace
  WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' AND nspname NOT LIKE 'writeamp\_rt\_%' AND nspname NOT LIKE 'writeamp\_undo\_%'
), member AS (
  SELECT classid, objid FROM pg_depend WHERE deptype = 'e'
)
SELECT 'relation-meta ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ' persistence ' || c.relpersistence::text
       || ' owner ' || pg_get_userbyid(c.relowner) || ' acl ' || coalesce(c.relacl::text, '-')
       || ' rls ' || c.relrowsecurity::text || ' force ' || c.relforcerowsecurity::text
       || coalesce(' comment ' || quote_literal(obj_description(c.oid, 'pg_class')), '')
FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
WHERE c.relkind <> 't' AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_class'::regclass AND m.objid = c.oid)
UNION ALL
SELECT 'column-comment ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || '.' || quote_ident(a.attname) || ' ' || quote_literal(d.description)
       || ' acl ' || coalesce(a.attacl::text, '-')
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'schema-meta ' || quote_ident(ns.nspname) || ' owner ' || pg_get_userbyid(n.nspowner) || ' acl ' || coalesce(n.nspacl::text, '-')
FROM pg_namespace n JOIN ns ON ns.oid = n.oid
UNION ALL
SELECT 'policy ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || '.' || quote_ident(p.polname) || ' ' || p.polcmd::text
       || ' permissive ' || p.polpermissive::text || ' roles ' || p.polroles::text
       || ' using ' || coalesce(pg_get_expr(p.polqual, p.polrelid), '-') || ' check ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-')
FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN ns ON ns.oid = c.relnamespace
UNION ALL
SELECT 'sequence ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || ' ' || format_type(s.seqtypid, NULL)
       || ' start ' || s.seqstart || ' inc ' || s.seqincrement || ' min ' || s.seqmin || ' max ' || s.seqmax || ' cache ' || s.seqcache || ' cycle ' || s.seqcycle::text
FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN ns ON ns.oid = c.relnamespace
WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_class'::regclass AND m.objid = c.oid)
UNION ALL
SELECT 'routine-body ' || quote_ident(ns.nspname) || '.' || quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ') '
       || md5(coalesce(p.prosrc, '') || '|' || coalesce(p.probin, '')) || ' owner ' || pg_get_userbyid(p.proowner) || ' acl ' || coalesce(p.proacl::text, '-')
       || ' security ' || p.prosecdef::text || ' volatility ' || p.provolatile::text || coalesce(' config ' || array_to_string(p.proconfig, ','), '')
FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_proc'::regclass AND m.objid = p.oid)
UNION ALL
SELECT 'trigger-state ' || quote_ident(ns.nspname) || '.' || quote_ident(c.relname) || '.' || quote_ident(t.tgname) || ' enabled ' || t.tgenabled::text
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ns ON ns.oid = c.relnamespace WHERE NOT t.tgisinternal
UNION ALL
SELECT 'setting ' || coalesce((SELECT datname FROM pg_database WHERE oid = s.setdatabase), '*') || ' ' || coalesce(pg_get_userbyid(NULLIF(s.setrole, 0)), '*')
       || ' ' || array_to_string(s.setconfig, ',')
FROM pg_db_role_setting s
WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
UNION ALL
SELECT 'database-meta owner ' || pg_get_userbyid(d.datdba) || ' acl ' || coalesce(d.datacl::text, '-')
       || coalesce(' comment ' || quote_literal(shobj_description(d.oid, 'pg_database')), '')
FROM pg_database d WHERE d.datname = current_database()

-- name: check_lock
-- One check at a time per database: a session-level advisory lock named
-- after the database, held by check's own session from before the
-- migration is applied to after it is undone (it ends with the session,
-- however writeamp ends). Tried, not waited on: the caller polls for a
-- bounded time and then names the holder.
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS
SELECT pg_try_advisory_lock(hashtextextended('writeamp:check:' || current_database(), 0))

-- name: check_lock_holder
-- The session holding check_lock (pg_locks: a bigint key is classid << 32 |
-- objid with objsubid 1), to name it.
-- https://www.postgresql.org/docs/current/view-pg-locks.html
SELECT a.pid::text, coalesce(a.usename::text, ''), coalesce(a.application_name, ''), coalesce(a.client_addr::text, 'local'), a.backend_start::text
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND ((l.classid::int8 << 32) | l.objid::int8) = hashtextextended('writeamp:check:' || current_database(), 0)

-- name: check_unlock
SELECT pg_advisory_unlock(hashtextextended('writeamp:check:' || current_database(), 0))

-- name: undo_marker_create
-- The record of an applied migration, written before it is applied: a
-- schema of check's own (writeamp_undo_<run>, left out of the catalog
-- comparison) with the undo plan and the catalog it must restore.
CREATE SCHEMA {{schema}}

-- name: undo_marker_table
CREATE TABLE {{schema}}.plan (seq int PRIMARY KEY, kind text NOT NULL, line text NOT NULL)

-- name: undo_marker_insert
INSERT INTO {{schema}}.plan VALUES ($1, $2, $3)

-- name: undo_markers
SELECT nspname FROM pg_namespace WHERE nspname ~ '^writeamp_undo_[0-9a-f]{8}$' ORDER BY 1

-- name: undo_marker_read
SELECT kind, line FROM {{schema}}.plan ORDER BY seq

-- name: undo_marker_drop
DROP SCHEMA IF EXISTS {{schema}} CASCADE
