package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/sqlparse"
)

// refuseClusterLevel refuses, before anything is copied, a --schema or
// --migration statement that changes the server rather than the database:
// a copy does not hold roles, database settings, tablespaces or the
// server's configuration, so the statement would change the real server.
func refuseClusterLevel(files ...[]sqlfile.File) error {
	for _, fs := range files {
		for _, f := range fs {
			for _, st := range f.Statements {
				if what := sqlparse.ClusterLevel(st); what != "" {
					return fmt.Errorf("--clone: %s line %d (%s) changes %s, which no copy of the database holds: it would change the real server. Run check without --clone (the migration is then applied to the database and undone), or take the statement out of the migration",
						f.Path, st.Line, short(st.Text), what)
				}
			}
		}
	}
	return nil
}

// tableWrites is the rows written so far per user table of the database q
// is connected to, read once the statistics of sessions that ended have
// arrived: two readings 300 ms apart agree (PostgreSQL 13/14 send them
// every 500 ms; 15+ publish a session's at its exit), within 5 s.
func (c *Cloner) tableWrites(ctx context.Context, q dialects.Querier) (map[string]int64, error) {
	read := func() (map[string]int64, error) {
		rows, err := q.QueryContext(ctx, c.sql("clone_original_writes"))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				return nil, err
			}
			out[name] = n
		}
		return out, rows.Err()
	}
	last, err := read()
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
		now, err := read()
		if err != nil {
			return nil, err
		}
		if maps.Equal(now, last) {
			return now, nil
		}
		last = now
	}
	return last, nil
}

// watchOriginal holds the original's table writes at the end against those
// read before the first copy: any row written there (by the command
// reaching it under another spelling of its DSN, or by another session)
// makes the check "not as it was".
func (c *Cloner) watchOriginal(ctx context.Context, q dialects.Querier, before map[string]int64, r *restore.Restoration) {
	if before == nil {
		return
	}
	after, err := c.tableWrites(ctx, q)
	if err != nil {
		r.Original = append(r.Original, fmt.Sprintf("could not read whether %s itself was written to (pg_stat_user_tables): %v", c.Template, err))
		return
	}
	for _, t := range slices.Sorted(maps.Keys(after)) {
		if d := after[t] - before[t]; d > 0 {
			r.Original = append(r.Original, fmt.Sprintf("%s: %d rows written in %s itself, not in a copy (pg_stat_user_tables.n_tup_ins + n_tup_upd + n_tup_del, any session): the command still reaches the original database (an argument or variable naming it that is not the --dsn text?); those writes stay",
				t, d, c.Template))
		}
	}
	if len(r.Original) == 0 {
		r.How += "; " + c.Template + " itself was not written to (pg_stat_user_tables: no row inserted, updated or deleted in its tables meanwhile)"
	}
}
