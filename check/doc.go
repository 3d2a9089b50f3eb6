// Package check is `writeamp check`: measure a workload, apply a migration,
// measure again, and hold the difference against budgets. It also warns,
// before anything runs, when a migration indexes a column the workload
// updates (on PostgreSQL that turns HOT updates into non-HOT ones; on
// MySQL/MariaDB each such update also rewrites an index entry).
package check
