package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// checksumLimit is the largest table whose rows are checksummed: above it
// only its row count is compared, and the restore says so.
const checksumLimit = 256 << 20

// tableInfo is a user table as check found it: its quoted name, the
// columns it had then (quoted, comma-joined) and its size in bytes.
type tableInfo struct {
	quoted, cols string
	size         int64
}

// rowSum is a table's row count and checksum ("" when the table is above
// checksumLimit, "error: …" when it could not be read: a column gone).
type rowSum struct {
	count int64
	sum   string
}

func (r rowSum) String() string {
	if r.sum == "" {
		return fmt.Sprintf("%d rows (too big to checksum)", r.count)
	}
	if strings.HasPrefix(r.sum, "error: ") {
		return r.sum
	}
	return fmt.Sprintf("%d rows, checksum %s", r.count, r.sum)
}

// snapshot is the database at one moment: its catalog and its tables' rows.
type snapshot struct {
	cat  Catalog
	rows map[string]rowSum
}

// tables lists the user tables, or nil where the dialect has no query.
func (g *Gate) tables(ctx context.Context, q dialects.Querier) (map[string]tableInfo, error) {
	text, err := g.ownSQL("check_tables")
	if err != nil {
		return nil, nil
	}
	var out map[string]tableInfo
	err = g.boundedRead(ctx, q, func(q dialects.Querier) error {
		rows, err := q.QueryContext(ctx, text, g.traits().QueryArgs(g.server(), text)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = map[string]tableInfo{}
		for rows.Next() {
			var key string
			var t tableInfo
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

// rowSums counts and checksums the rows of tabs, over the columns each had
// when listed.
// Each read waits for a lock at most --lock-timeout: a table that could not
// be read in time is an "error: …" naming who held it up, which proves
// nothing.
func (g *Gate) rowSums(ctx context.Context, q dialects.Querier, tabs map[string]tableInfo) map[string]rowSum {
	if tabs == nil {
		return nil
	}
	var out map[string]rowSum
	var plain string
	err := g.boundedRead(ctx, q, func(q dialects.Querier) error {
		var err error
		out, err = g.sumRows(ctx, q, tabs)
		if err != nil {
			plain = "error: " + err.Error()
		}
		return err
	})
	if err != nil && plain != "" {
		for k, r := range out {
			if r.sum == plain {
				out[k] = rowSum{sum: "error: " + err.Error()} // with who held it up
			}
		}
	}
	return out
}

// sumRows is rowSums on one session. It stops at the first table that
// waited too long for a lock (the others would wait as long), and returns
// that error.
func (g *Gate) sumRows(ctx context.Context, q dialects.Querier, tabs map[string]tableInfo) (map[string]rowSum, error) {
	if tabs == nil {
		return nil, nil
	}
	text, err := g.ownSQL("table_checksum")
	if err != nil {
		return nil, nil
	}
	out := map[string]rowSum{}
	for key, t := range tabs {
		stmt := strings.NewReplacer("{{table}}", t.quoted, "{{columns}}", g.traits().HashColumns(t.cols)).Replace(text)
		var r rowSum
		if t.size > checksumLimit {
			stmt = "SELECT count(*), '' FROM " + t.quoted
		}
		if err := q.QueryRowContext(ctx, stmt).Scan(&r.count, &r.sum); err != nil {
			if isLockTimeout(g.server().Dialect, err) {
				err = fmt.Errorf("checksum of %s: %w", key, err)
				for k := range tabs {
					if _, done := out[k]; !done {
						out[k] = rowSum{sum: "error: " + err.Error()}
					}
				}
				return out, err
			}
			r = rowSum{sum: "error: " + err.Error()}
		}
		out[key] = r
	}
	return out, nil
}

// take reads a snapshot: the catalog, and the rows of tabs, on one
// session whose lock waits are bounded; a read that gave up is an error.
func (g *Gate) take(ctx context.Context, q dialects.Querier, tabs map[string]tableInfo) (snapshot, error) {
	var snap snapshot
	err := g.boundedRead(ctx, q, func(q dialects.Querier) error {
		cat, err := ReadCatalog(ctx, q, g.server())
		if err != nil {
			return err
		}
		snap.cat = cat
		snap.rows, err = g.sumRows(ctx, q, tabs)
		return err
	})
	if err != nil {
		return snapshot{}, err
	}
	return snap, nil
}

// same reports two snapshots that show no difference check can see (a
// table counted only is not proof of anything).
func (s snapshot) same(o snapshot) bool {
	if !s.cat.Equal(o.cat) || s.rows == nil || len(s.rows) != len(o.rows) {
		return false
	}
	for k, r := range s.rows {
		if r.sum == "" || strings.HasPrefix(r.sum, "error: ") || o.rows[k] != r {
			return false
		}
	}
	return true
}

// rowsAfterUndo holds the user's tables (those there before check) to
// what an undo may do to their rows. pre and post are the rows just before
// and after the migration was applied, bu and au just before and after the
// undo. A table the migration did not write must come out of the undo
// unchanged; one it wrote must be back to pre, which can be proved only
// when the workload did not write it as well (post = bu).
func rowsAfterUndo(user map[string]tableInfo, pre, post, bu, au map[string]rowSum) (changed, unproven []string) {
	for key := range user {
		p, ok := pre[key]
		if !ok {
			continue
		}
		switch {
		case p.sum == "" || bu[key].sum == "":
			if au[key].count != bu[key].count && p == post[key] {
				changed = append(changed, fmt.Sprintf("%s: the undo changed its row count (%s before it, %s after)", key, bu[key], au[key]))
			} else if p != post[key] || bu[key] != au[key] {
				unproven = append(unproven, fmt.Sprintf("%s is above %d MiB: only its row count is compared (%s before the undo, %s after)", key, checksumLimit>>20, bu[key], au[key]))
			}
		case p == post[key]:
			if bu[key] != au[key] {
				changed = append(changed, fmt.Sprintf("%s: the undo changed its rows, which the migration did not write (%s before the undo, %s after)", key, bu[key], au[key]))
			}
		case post[key] == bu[key]:
			if au[key] != p {
				changed = append(changed, fmt.Sprintf("%s: the migration changed its rows and the undo did not put them back (%s before the migration, %s after the undo)", key, p, au[key]))
			}
		default:
			if au[key] != p {
				unproven = append(unproven, fmt.Sprintf("%s: the migration changed its rows and the workload wrote to it too, so check cannot prove its rows are as they were (%s before the migration, %s after the undo)", key, p, au[key]))
			}
		}
	}
	return changed, unproven
}
