package check

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// The migration's apply step measured as a window of its own: how long it
// took, the log it wrote (bytes, records, full-page images), the rows it
// rewrote, the size it added to tables and indexes and, where the window's
// observers sample them, the waits of the sessions during it. A budget
// named migration.<metric> holds it (migration.log_bytes<=500MB,
// migration.seconds<=60). Kept apart from gate.go and check/restore so
// the apply and undo flow can change around one call site.

// applyMeasured applies files as applyPublished does, inside a window, and
// returns the window as a run labelled "migration". A failed apply returns
// its error (wrapped in errApply) and no run.
func (g *Gate) applyMeasured(ctx context.Context, win *measure.Window, files []sqlfile.File) (*result.Run, error) {
	// Prepared and restored like every other window (measure.Wrapped): the
	// samplers' own pools opened for it are closed when it ends.
	notes := win.Instrument(ctx, true)
	defer win.Restore(ctx, 30*time.Second)
	run, err := g.measureApply(ctx, win, g.Scope, "", files)
	if run != nil {
		run.Warnings = append(run.Warnings, notes...)
	}
	return run, err
}

// measureApply is the window around one apply step on a window already
// instrumented (the built-in workload's Experiment instruments its own
// before Prepare, where the migration is applied): files applied on a
// session of their own, in schema when one is named, whose statistics are
// published before the after snapshot (on PostgreSQL 13/14 by closing it),
// so the migration's row counts land in its own window. Prepare's own
// connection cannot be closed halfway, so the migration never runs on it.
func (g *Gate) measureApply(ctx context.Context, win *measure.Window, sc collectors.Scope, schema string, files []sqlfile.File) (*result.Run, error) {
	sp, err := win.Begin(ctx, sc)
	if err != nil {
		return nil, measureErr("migration window", err)
	}
	sp.Label = "migration"
	t0 := time.Now()
	if err := g.applyOn(ctx, win, schema, files); err != nil {
		sp.StopObserving(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%w: --migration: %w", errApply, err)
	}
	elapsed := time.Since(t0)
	delta, err := sp.End(ctx, measure.Quiet(5*time.Second))
	if err != nil {
		return nil, measureErr("migration window", err)
	}
	var stmts int64
	for _, f := range files {
		stmts += int64(f.Applied)
	}
	run := measure.BuildRun("migration", delta, workloads.Stats{Elapsed: elapsed, Operations: map[string]int64{"statements": stmts}}, "statements")
	run.Label = "migration"
	run.Warnings = append(run.Warnings, sp.Warnings...)
	run.Database[result.ElapsedSeconds.Name] = result.New(elapsed.Seconds(), result.Exact, "wall-clock time of applying the migration's statements, on writeamp's clock")
	var added float64
	ex, n := result.Exact, 0
	for _, objs := range [][]result.Object{run.Tables, run.Indexes} {
		counted := result.Counted(objs) // a partition's or TOAST table's size is in its table's
		for _, o := range objs {
			if !counted(o) {
				continue
			}
			if m, ok := o.Metrics["size_bytes"]; ok && m.OK() {
				added += m.V()
				ex = result.Weaker(ex, m.Exactness)
				n++
			}
		}
	}
	if n > 0 {
		run.Database[result.SizeAddedBytes.Name] = result.Metric{Value: &added, Exactness: result.Weaker(result.Derived, ex),
			Source: fmt.Sprintf("sum of the size_bytes change of the %d tables and indexes in scope (new ones from zero)", n)}
	} else {
		run.Database[result.SizeAddedBytes.Name] = result.NA("size_bytes", "no table or index size was read in the window")
	}
	return run, nil
}

// migrationVerdicts holds a migration.<metric> budget to the migration's
// window; ok is false for any other budget. Only a threshold on the
// window's own value means anything: there is no "before" to compare with.
func migrationVerdicts(b budget.Budget, mig *result.Run) (vs []budget.Verdict, ok bool) {
	metric, ok := strings.CutPrefix(b.Metric, result.MigrationPrefix)
	if !ok {
		return nil, false
	}
	unknown := func(why string) ([]budget.Verdict, bool) {
		return []budget.Verdict{{Budget: b.String(), Level: "migration", Object: b.Object, Status: budget.Unknown, Message: why}}, true
	}
	switch {
	case mig == nil:
		return unknown("the migration's apply step was not measured in a window of its own (every mode measures it on its first \"after\" side; this check reached none)")
	case b.Kind != budget.Absolute:
		return unknown("a migration budget holds the apply step's own value (e.g. migration.log_bytes<=500MB): it has no before to change from")
	case b.PerOp:
		return unknown("a migration budget has no operation to divide by: drop /op")
	}
	inner := b
	inner.Metric = metric
	vs = budget.Evaluate(inner, mig, mig)
	for i := range vs {
		vs[i].Budget = b.String()
		vs[i].Before = nil
		vs[i].Message = "migration: " + vs[i].Message
	}
	return vs, true
}

// migrationNote is the report's sentence on the apply step: its time, log,
// size added, the rows it wrote, the lock waits during it and, on a primary
// with standbys, the log shipped to them; a figure the window lacks is left
// out, except the lock waits, whose absence is said (a migration that
// waited on a lock is the first thing a reviewer asks about).
func migrationNote(r *result.Run) string {
	if r == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("migration: applying it took %.3f s", r.Database[result.ElapsedSeconds.Name].V())}
	for _, k := range []struct{ name, what string }{{"log_bytes", "log bytes"}, {"log_records", "log records"}, {"fpi_count", "full-page images"}, {"size_added_bytes", "bytes of table and index size added"}, {result.ReplicasLogBytesSent.Name, "log bytes shipped to standbys"}} {
		if m := r.Database[k.name]; m.OK() {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", result.FormatShort(k.name, m.V()), k.what, m.Exactness))
		}
	}
	if rows, e, ok := rowsWritten(r); ok {
		parts = append(parts, fmt.Sprintf("%s rows written (inserted + updated + deleted, %s; a rewrite by ALTER TABLE counts none)", result.FormatCount(rows), e))
	}
	parts = append(parts, lockWaits(r))
	return strings.Join(parts, ", ") + "; budget it with migration.<metric> (e.g. migration.log_bytes<=500MB, migration.seconds<=60); the result JSON's \"migration\" run has the per-table and per-index figures"
}

// rowsWritten sums the tables' row counters of the migration's window: the
// rows a backfill UPDATE or a data migration wrote.
func rowsWritten(r *result.Run) (float64, result.Exactness, bool) {
	s := r.TableRows()
	return s.N, s.Exactness, s.Counted > 0
}

// lockWaits says what the window saw of lock waits: the server's lock wait
// counters (exact; which families are locks: lockWait) and the sampled share
// of active time in a Lock state (wait_share.Lock.*, approx), or that it had
// neither.
func lockWaits(r *result.Run) string {
	var count, ms, share float64
	var counted, timed, sampled bool
	for name, m := range r.Database {
		if !m.OK() {
			continue
		}
		if lock, isMS := lockWait(name); lock && isMS {
			ms, timed = ms+m.V(), true
		} else if lock {
			count, counted = count+m.V(), true
		} else if strings.HasPrefix(name, result.WaitSharePrefix+"Lock.") {
			share, sampled = share+m.V(), true
		}
	}
	var out []string
	if counted {
		out = append(out, fmt.Sprintf("%s lock waits", result.FormatCount(count)))
	}
	if timed {
		out = append(out, fmt.Sprintf("%.0f ms waiting on locks", ms))
	}
	if sampled {
		out = append(out, fmt.Sprintf("%.0f%% of sampled active time waiting on a lock (approx)", 100*share))
	}
	if len(out) == 0 {
		if n := r.Database[result.WaitSamples.Name]; n.OK() && n.V() > 0 {
			return fmt.Sprintf("no lock wait in %.0f wait samples (approx)", n.V())
		}
		return "lock waits not measured (the window had no wait sampler or lock counters)"
	}
	return strings.Join(out, ", ")
}

// lockWait says whether a waits.* family counts waits for a lock a
// transaction holds (a row, table or metadata lock), and whether it is the
// family's time (_ms). A name holding "lock" is not enough: MySQL's
// performance_schema names its latches wait/synch/rwlock/... and
// .../lock_mutex, and counts every acquisition of them. Locks are InnoDB's
// row locks (waits.row_lock, from Innodb_row_lock_waits), performance_schema's
// wait/lock/ instruments (the SQL layer's table and metadata locks), SQL
// Server's LCK_M_* wait types, and Oracle's row and table lock enqueues
// (enq: TX - row lock contention, enq: TM - contention).
func lockWait(name string) (lock, ms bool) {
	family, ok := strings.CutPrefix(strings.ToLower(name), result.WaitsPrefix)
	if !ok {
		return false, false
	}
	family, ms = strings.CutSuffix(family, "_ms")
	switch family {
	case "row_lock", "enq_tx_row_lock_contention", "enq_tm_contention":
		return true, ms
	}
	if strings.HasPrefix(family, "wait/lock/") || strings.HasPrefix(family, "lck_m_") {
		return true, ms
	}
	return false, false
}
