package restore

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// Table is a user table as check found it: its quoted name, the
// columns it had then (quoted, comma-joined) and its size in bytes.
type Table struct {
	quoted, cols string
	size         int64
}

// RowSum is a table's row count and checksum ("error: …" when it could
// not be read: a column gone, a lock not granted in time).
type RowSum struct {
	count int64
	sum   string
}

// computed reports a checksum that was read: only those prove anything.
func (r RowSum) computed() bool { return r.sum != "" && !strings.HasPrefix(r.sum, "error: ") }

func (r RowSum) String() string {
	if r.sum == "" {
		return fmt.Sprintf("%d rows (not checksummed)", r.count)
	}
	if strings.HasPrefix(r.sum, "error: ") {
		return r.sum
	}
	return fmt.Sprintf("%d rows, checksum %s", r.count, r.sum)
}

// Snapshot is the database at one moment: its catalog and its tables' rows.
type Snapshot struct {
	Cat  Catalog
	Rows map[string]RowSum
}

// Tables lists the user tables, or nil where the dialect has no query.
func (e *Env) Tables(ctx context.Context, q dialects.Querier) (map[string]Table, error) {
	text, err := e.ownSQL("check_tables")
	if err != nil {
		return nil, nil
	}
	var out map[string]Table
	err = e.BoundedRead(ctx, q, func(q dialects.Querier) error {
		rows, err := q.QueryContext(ctx, text, e.traits().QueryArgs(e.Server, text)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = map[string]Table{}
		for rows.Next() {
			var key string
			var t Table
			if err := rows.Scan(&key, &t.quoted, &t.cols, &t.size); err != nil {
				return err
			}
			out[key] = t
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list the tables: %w", err)
	}
	return out, nil
}

// RowSums counts and checksums the rows of tabs, over the columns each had
// when listed. Every table is checksummed whatever its size: a table only
// counted let a down that rewrote every value pass as a
// Each read waits for a lock at most --lock-timeout: a table that could not
// be read in time is an "error: …" naming who held it up, which proves
// nothing.
func (e *Env) RowSums(ctx context.Context, q dialects.Querier, tabs map[string]Table) map[string]RowSum {
	if tabs == nil {
		return nil
	}
	var out map[string]RowSum
	var plain string
	err := e.BoundedRead(ctx, q, func(q dialects.Querier) error {
		var err error
		out, err = e.sumRows(ctx, q, tabs)
		if err != nil {
			plain = "error: " + err.Error()
		}
		return err
	})
	if err != nil && plain != "" {
		for k, r := range out {
			if r.sum == plain {
				out[k] = RowSum{sum: "error: " + err.Error()} // with who held it up
			}
		}
	}
	return out
}

// sumRows is rowSums on one session. It stops at the first table that
// waited too long for a lock (the others would wait as long), and returns
// that error.
func (e *Env) sumRows(ctx context.Context, q dialects.Querier, tabs map[string]Table) (map[string]RowSum, error) {
	if tabs == nil {
		return nil, nil
	}
	text, err := e.ownSQL("table_checksum")
	if err != nil {
		return nil, nil
	}
	out := map[string]RowSum{}
	for key, t := range tabs {
		stmt := strings.NewReplacer("{{table}}", t.quoted, "{{columns}}", e.traits().HashColumns(t.cols)).Replace(text)
		var r RowSum
		if err := q.QueryRowContext(ctx, stmt).Scan(&r.count, &r.sum); err != nil {
			if dialects.IsLockTimeout(e.Server.Dialect, err) {
				err = fmt.Errorf("checksum of %s: %w", key, err)
				for k := range tabs {
					if _, done := out[k]; !done {
						out[k] = RowSum{sum: "error: " + err.Error()}
					}
				}
				return out, err
			}
			r = RowSum{sum: "error: " + err.Error()}
		}
		out[key] = r
	}
	return out, nil
}

// Take reads a Snapshot: the catalog, and the rows of tabs, on one
// session whose lock waits are bounded; a read that gave up is an error.
func (e *Env) Take(ctx context.Context, q dialects.Querier, tabs map[string]Table) (Snapshot, error) {
	var snap Snapshot
	err := e.BoundedRead(ctx, q, func(q dialects.Querier) error {
		cat, err := ReadCatalog(ctx, q, e.Server)
		if err != nil {
			return err
		}
		snap.Cat = cat
		snap.Rows, err = e.sumRows(ctx, q, tabs)
		return err
	})
	if err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

// same reports two snapshots that show no difference check can see (a
// table counted only is not proof of anything).
func (s Snapshot) same(o Snapshot) bool {
	if !s.Cat.Equal(o.Cat) || s.Rows == nil || len(s.Rows) != len(o.Rows) {
		return false
	}
	for k, r := range s.Rows {
		if r.sum == "" || strings.HasPrefix(r.sum, "error: ") || o.Rows[k] != r {
			return false
		}
	}
	return true
}

// rowVerdict is what the rows say about an undo: changed are tables the
// undo got wrong (it is rolled back where it can be), unproven those whose
// rows cannot be proved as they were, left those written while the
// command ran after the migration by something other than the command
// (objects the migration created, or another session), which no undo
// statement removes: the database is not as it was, yet the undo is kept.
type rowVerdict struct {
	changed, unproven, left []string
}

// rowsAfterUndo holds the user's tables (those there before check) to
// what an undo may do to their rows. t.Pre and t.Post are the rows just
// before and after the migration was applied, t.Quiet just before the
// command ran on the before side, bu and au just before and after the
// undo.
//
// A table the command did not write over the before side (t.Quiet = t.Pre)
// is not the workload's: it must come out of the undo exactly as it was
// before the migration. Rows written into it during the after side were
// written by what the migration created (a trigger into an audit table, a
// rule) or by another session; they are listed as left. For a table the
// command writes, its writes stay (they are the workload): one the
// migration did not write must come out of the undo unchanged, one it
// wrote must be back to t.Pre, which can be proved only when the command
// did not write it as well over the after side (t.Post = bu).
//
// A table whose checksum could not be read before the migration or after
// the undo makes the restore unproven, never proven.
func rowsAfterUndo(t *Target, bu, au map[string]RowSum) (v rowVerdict) {
	for key := range t.User {
		p, ok := t.Pre.Rows[key]
		if !ok {
			continue
		}
		post, b, a := t.Post.Rows[key], bu[key], au[key]
		if !p.computed() || !a.computed() {
			what := p
			if p.computed() {
				what = a
			}
			v.unproven = append(v.unproven, fmt.Sprintf("%s: its rows could not be checksummed (%s), so check cannot prove them as they were", key, what))
			continue
		}
		q, known := t.Quiet[key]
		switch {
		case known && q.computed() && q == p:
			if a == p {
				continue
			}
			if b != post {
				v.left = append(v.left, fmt.Sprintf("%s: rows were written to it while the command ran after the migration, though the command wrote none of it before the migration: what the migration created (a trigger, a rule) or another session wrote them, and they stay (%s before the migration, %s after the undo)", key, p, a))
				continue
			}
			if p == post {
				v.changed = append(v.changed, fmt.Sprintf("%s: the undo changed its rows, which the migration did not write (%s before the undo, %s after)", key, b, a))
			} else {
				v.changed = append(v.changed, fmt.Sprintf("%s: the migration changed its rows and the undo did not put them back (%s before the migration, %s after the undo)", key, p, a))
			}
		case p == post:
			if b != a {
				v.changed = append(v.changed, fmt.Sprintf("%s: the undo changed its rows, which the migration did not write (%s before the undo, %s after)", key, b, a))
			}
		case post == b:
			if a != p {
				v.changed = append(v.changed, fmt.Sprintf("%s: the migration changed its rows and the undo did not put them back (%s before the migration, %s after the undo)", key, p, a))
			}
		default:
			if a != p {
				v.unproven = append(v.unproven, fmt.Sprintf("%s: the migration changed its rows and the workload wrote to it too, so check cannot prove its rows are as they were (%s before the migration, %s after the undo)", key, p, a))
			}
		}
	}
	return v
}
