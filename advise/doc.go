// Package advise is `writeamp advise`: diagnose a workload in one measured
// window on a copy of the database, propose index and table changes as
// up/down migrations, measure each with the same workload through check's
// gate (on copies: the user's database is never written) and rank them by
// the log bytes they saved.
package advise
