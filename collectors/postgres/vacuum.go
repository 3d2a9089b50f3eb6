package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// Vacuum runs VACUUM (VERBOSE) on each table in scope for run --vacuum and
// reads what it did from its own messages (queries/postgres/vacuum.sql
// lists them per major): the server's counters of that one vacuum, so
// exact, where pg_stat_user_tables' n_dead_tup is an estimate and
// pg_stat_progress_vacuum only a sample of a moving figure.
type Vacuum struct{}

// vacuumNames are the figures of the vacuum's window a run keeps, under
// their vacuum_ names; the database's cover the whole cluster's WAL.
var vacuumNames = map[string]string{
	result.LogBytes.Name:     result.VacuumLogBytes.Name,
	result.LogRecords.Name:   result.VacuumLogRecords.Name,
	result.FpiCount.Name:     result.VacuumFpiCount.Name,
	result.FpiBytes.Name:     result.VacuumFpiBytes.Name,
	result.PagesTouched.Name: result.VacuumPagesTouched.Name,
	result.BufferHits.Name:   result.VacuumBufferHits.Name,
	result.BufferReads.Name:  result.VacuumBufferReads.Name,
}

func (Vacuum) WindowMetric(level collectors.Level, metric string) (string, bool) {
	name, ok := vacuumNames[metric]
	if level == collectors.DB && (metric == result.PagesTouched.Name || strings.HasPrefix(metric, "buffer_")) {
		return "", false // pg_stat_io's cluster-wide figures are not the vacuum's own
	}
	return name, ok
}

func (Vacuum) Vacuum(ctx context.Context, db *sql.DB, s dialects.Server, tables, indexes []collectors.Object) (out []collectors.Counter, warns []string, err error) {
	vacuum, err := collectors.SQL(pg.Name, "vacuum", s)
	if err != nil {
		return nil, nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	if _, err := queries.Exec(ctx, conn, pg.Name, "vacuum_messages", s.VersionNum); err != nil {
		return nil, nil, err
	}
	defer func() {
		// The session's WAL and I/O counts must reach the statistics views
		// before the window's after snapshot, as a workload session's do.
		cctx := context.WithoutCancel(ctx)
		if _, rerr := queries.Exec(cctx, conn, pg.Name, "vacuum_messages_reset", s.VersionNum); rerr != nil {
			warns = append(warns, "reset client_min_messages: "+rerr.Error())
		}
		if eerr := (pg.Dialect{}).EndSession(cctx, conn, s); eerr != nil {
			warns = append(warns, eerr.Error())
		}
	}()
	for _, t := range tables {
		if t.Info["toast"] != "" {
			continue // no name to VACUUM by: its table's VACUUM processes it
		}
		var msgs []*pgconn.Notice
		stmt := strings.ReplaceAll(vacuum, "{{table}}", pgx.Identifier{t.Schema, t.Name}.Sanitize())
		err := pg.WithNotices(ctx, conn, func(n *pgconn.Notice) { msgs = append(msgs, n) }, func() error {
			_, err := conn.ExecContext(ctx, stmt)
			return err
		})
		if err != nil {
			return out, warns, fmt.Errorf("VACUUM %s: %w", t.FQN(), err)
		}
		var ix []collectors.Object
		for _, o := range indexes {
			// VERBOSE reports a TOAST index under the TOAST table's own name.
			if o.Schema == t.Schema && o.Table == t.Name && o.Info["toast"] == "" {
				ix = append(ix, o)
			}
		}
		cs, w := parseVacuum(msgs, t, ix, s.VersionNum/10000)
		out = append(out, cs...)
		warns = append(warns, w...)
	}
	return out, warns, nil
}

var (
	reFound     = regexp.MustCompile(`^(?:table )?"([^"]*)": found (\d+) removable, \d+ nonremovable row versions in (\d+) out of \d+ pages`)
	reFinished  = regexp.MustCompile(`^finished vacuuming "([^"]*)"`)
	rePages     = regexp.MustCompile(`(?m)^pages: (\d+) removed, \d+ remain, (\d+) scanned`)
	reTuples    = regexp.MustCompile(`(?m)^tuples: (\d+) removed`)
	reBuffers   = regexp.MustCompile(`(?m)^buffer usage: \d+ hits, \d+ (?:misses|reads), (\d+) dirtied`)
	reRemoved   = regexp.MustCompile(`^(?:table )?"([^"]*)": removed (\d+) (?:row versions|dead item identifiers) in \d+ pages`)
	reTruncated = regexp.MustCompile(`^(?:table )?"([^"]*)": truncated (\d+) to (\d+) pages`)
	reIndex     = regexp.MustCompile(`^index "([^"]*)" now contains \d+ row versions in \d+ pages`)
	reIxRemoved = regexp.MustCompile(`(\d+) index row versions were removed`)
	reIxDeleted = regexp.MustCompile(`(\d+) index pages (were newly deleted|have been deleted)`)
)

func atof(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

// parseVacuum reads one table's VACUUM (VERBOSE) messages. A figure whose
// message did not arrive is left out with a warning, never taken as zero.
func parseVacuum(msgs []*pgconn.Notice, t collectors.Object, ixs []collectors.Object, major int) ([]collectors.Counter, []string) {
	obj := t.FQN()
	var out []collectors.Counter
	put := func(level collectors.Level, o string, metric *result.Info, v float64, ex result.Exactness, src, note string) {
		out = append(out, collectors.Counter{Key: collectors.NewKey(level, o, metric), Value: v, Exactness: ex, Source: "VACUUM (VERBOSE): " + src, Interval: true, Note: note})
	}
	summary := false
	var deadItems, truncated float64
	byName := map[string]collectors.Object{}
	for _, o := range ixs {
		byName[o.Name] = o
	}
	seenIx := map[string]bool{}
	for _, n := range msgs {
		m := n.Message
		switch {
		case reFound.MatchString(m): // 13, 14
			g := reFound.FindStringSubmatch(m)
			if g[1] != t.Name {
				continue // its TOAST table
			}
			summary = true
			put(collectors.Table, obj, result.VacuumDeadRowsRemoved, atof(g[2]), result.Exact, `"found N removable" (dead tuples this vacuum pruned)`, "")
			put(collectors.Table, obj, result.VacuumPagesScanned, atof(g[3]), result.Exact, `"in X out of Y pages"`, "")
		case reFinished.MatchString(m): // 15+
			if !strings.HasSuffix(reFinished.FindStringSubmatch(m)[1], "."+t.Schema+"."+t.Name) {
				continue
			}
			summary = true
			if g := rePages.FindStringSubmatch(m); g != nil {
				put(collectors.Table, obj, result.VacuumPagesRemoved, atof(g[1]), result.Exact, `"pages: R removed" (truncated off the end)`, "")
				put(collectors.Table, obj, result.VacuumPagesScanned, atof(g[2]), result.Exact, `"pages: ... X scanned"`, "")
			}
			if g := reTuples.FindStringSubmatch(m); g != nil {
				put(collectors.Table, obj, result.VacuumDeadRowsRemoved, atof(g[1]), result.Exact, `"tuples: N removed" (dead tuples this vacuum pruned)`, "")
			}
			if g := reBuffers.FindStringSubmatch(m); g != nil {
				put(collectors.Table, obj, result.VacuumBuffersDirtied, atof(g[1]), result.Exact, `"buffer usage: ... D dirtied" (the table, its indexes and TOAST)`, "")
			}
		case reRemoved.MatchString(m):
			if g := reRemoved.FindStringSubmatch(m); g[1] == t.Name {
				deadItems += atof(g[2]) // once per index pass
			}
		case reTruncated.MatchString(m): // 13, 14
			if g := reTruncated.FindStringSubmatch(m); g[1] == t.Name {
				truncated += atof(g[2]) - atof(g[3])
			}
		case reIndex.MatchString(m):
			o, ok := byName[reIndex.FindStringSubmatch(m)[1]]
			if !ok {
				continue // a TOAST index
			}
			seenIx[o.Name] = true
			if g := reIxRemoved.FindStringSubmatch(n.Detail); g != nil {
				put(collectors.Index, o.FQN(), result.VacuumIndexEntriesRemoved, atof(g[1]), result.Exact, `"K index row versions were removed" (heap TIDs, posting lists' included)`, "")
			}
			if g := reIxDeleted.FindStringSubmatch(n.Detail); g != nil {
				if g[2] == "were newly deleted" {
					put(collectors.Index, o.FQN(), result.VacuumIndexPagesDeleted, atof(g[1]), result.Exact, `"D index pages were newly deleted"`, "")
				} else {
					put(collectors.Index, o.FQN(), result.VacuumIndexPagesDeleted, atof(g[1]), result.Approx, `"D index pages have been deleted"`,
						"PostgreSQL 13 reports the index's deleted pages, those an earlier vacuum deleted included")
				}
			}
		}
	}
	var warns []string
	if !summary {
		why := "were its notices delivered?"
		for _, n := range msgs {
			if n.Severity == "WARNING" { // e.g. skipping "t" --- only table or database owner can vacuum it
				why = "the server said: " + n.Message
			}
		}
		warns = append(warns, fmt.Sprintf("VACUUM of %s sent no summary message (%s): its pages scanned and dead rows removed are unknown", obj, why))
		return out, warns
	}
	put(collectors.Table, obj, result.VacuumDeadItemsRemoved, deadItems, result.Exact, `"removed N dead item identifiers" (13: "row versions"), summed over index passes: line pointers made unused, each one an entry in every index`, "")
	if major < 15 {
		put(collectors.Table, obj, result.VacuumPagesRemoved, truncated, result.Exact, `"truncated A to B pages" (none: no truncation)`, "")
	}
	for _, o := range ixs {
		if !seenIx[o.Name] {
			warns = append(warns, fmt.Sprintf("VACUUM of %s said nothing of index %s: its entries removed are unknown", obj, o.Name))
		}
	}
	return out, warns
}
