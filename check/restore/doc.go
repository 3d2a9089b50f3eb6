// Package restore is how a check puts a database back and proves it did: the
// undo planned before anything is applied (PlanUndo: down files, goose Down
// sections, --down, computed inverses), run on a session whose lock waits
// are bounded by --lock-timeout (Env.Session, Env.BoundedRead), and held to
// the catalog and the rows read before the migration (Take, Target, RunUndo:
// in one transaction that commits only when they match, where the dialect's
// DDL allows, else refused before it runs); the check lock and the record of
// an applied migration that a killed check leaves (Env.Acquire, Guard,
// PendingUndos: the next check, clean and doctor finish or report it); and
// the Restoration (what was undone, refused or left, and its typed State)
// that the report, the exit code and the tests read. Apart from check so
// that what changes a user's database and what proves it unchanged can be
// read, and reviewed, without the measuring and the budgets: check only
// orchestrates it, through Env, which carries what the restore needs of a
// check (the server, its pool, the lock bound, the log).
package restore
