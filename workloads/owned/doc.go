// Package owned is the lifecycle of the schemas a built-in workload creates
// for itself, shared by every workload: a schema per variant named
// Prefix + run id + "_" + variant (MySQL: a database; Oracle: a user that
// cannot log in), an owner marker in it, a lock named after it that the run
// holds while the schema exists, the drop at the end (unless kept), and the
// survey of what earlier runs left. The SQL is queries/<dialect>/owned.sql.
//
// Ownership is provable across hosts and PID namespaces: the lock is a
// session-level lock of the database (PostgreSQL advisory lock, MySQL/MariaDB
// GET_LOCK, SQL Server sp_getapplock, Oracle DBMS_LOCK) taken before the
// schema is created and held until it is dropped; the database frees it
// when the session ends, however the process ends. So a schema whose lock
// can be taken belongs to no running writeamp and may be dropped, and one
// whose lock is held is never touched. Kept schemas (--keep) are marked so
// and never dropped automatically.
package owned
