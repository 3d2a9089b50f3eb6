// Package restore is how a check puts a database back and proves it did:
// the catalog readings and their difference, the undo that difference
// proves for a migration that only added things, and the Restoration (what
// was undone, refused or left, and its typed State) that the report, the
// exit code and the tests read; and the sessions whose lock waits are
// bounded by --lock-timeout (Env.Session, Env.BoundedRead), on which the
// migration, its undo and every read that proves it run. Apart from check
// so that what changes a user's database and what proves it unchanged can
// be read, and reviewed, without the measuring and the budgets; check only
// orchestrates it.
package restore
