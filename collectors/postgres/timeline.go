package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.RegisterTimeline(pg.Name, Timeline{}) }

// Timeline is PostgreSQL's interval sampler: the WAL insert position (exact
// at the instant it is read), this database's row and commit counts from
// pg_stat_database, and HOT updates summed over the scope's tables. The
// statistics counters arrive when sessions publish them, so they can land
// an interval late: their rates are approx.
type Timeline struct{}

// MaxHOTTables bounds the per-table reads of one sample: HOT updates are
// kept per table only, and summing more tables than this every interval
// would no longer be a cheap read.
const MaxHOTTables = 1000

// publication says when a session's statistics become visible, per major.
func publication(s dialects.Server) string {
	if s.Has(pg.CapForceFlush) {
		return "approx per interval: sessions publish their counts when they go idle outside a transaction, at most once a second (a session that then stays idle, after up to 10 s, or when it ends), so work can show in the interval after the one it ran in"
	}
	return "approx per interval: sessions send their counts to the statistics collector at most every 500 ms, when idle between transactions (or when they end), so work can show in the interval after the one it ran in"
}

// tables are the oids of the scope's tables, nil when there are too many.
func tables(objs []collectors.Object) []int64 {
	var out []int64
	for _, o := range objs {
		if o.Level != collectors.Table {
			continue
		}
		if oid, err := strconv.ParseInt(o.Info["oid"], 10, 64); err == nil {
			out = append(out, oid)
		}
	}
	if len(out) > MaxHOTTables {
		return nil
	}
	return out
}

func (Timeline) Series(s dialects.Server, objs []collectors.Object) ([]result.SampleSeries, []string) {
	var out []result.SampleSeries
	var notes []string
	if s.Has(pg.CapPrimary) {
		out = append(out, result.SampleSeries{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Exact,
			Source: "pg_current_wal_insert_lsn() (whole cluster, all sessions; includes WAL page headers and record alignment)",
			Note:   "the insert position at the moment of each reading: exact"})
	} else {
		notes = append(notes, "log bytes not sampled: "+s.Why(pg.CapPrimary))
	}
	late := publication(s)
	for _, c := range [][3]string{{result.RowsInserted.Name, "tup_inserted", "rows inserted"}, {result.RowsUpdated.Name, "tup_updated", "rows updated (HOT included)"}, {result.RowsDeleted.Name, "tup_deleted", "rows deleted"}} {
		out = append(out, result.SampleSeries{Name: c[0], Unit: result.Count, Exactness: result.Approx,
			Source: "pg_stat_database." + c[1] + " (" + c[2] + ", this database, all sessions)", Note: late})
	}
	out = append(out, result.SampleSeries{Name: result.TransactionsCommitted.Name, Unit: result.Count, Exactness: result.Approx,
		Source: "pg_stat_database.xact_commit (this database, all sessions; the sampler's own reads are rolled back and not counted)", Note: late})
	n := 0
	for _, o := range objs {
		if o.Level == collectors.Table {
			n++
		}
	}
	switch oids := tables(objs); {
	case n == 0:
		notes = append(notes, "HOT updates not sampled: no table in scope when the window opened")
	case oids == nil:
		notes = append(notes, fmt.Sprintf("HOT updates not sampled: %d tables in scope, more than the %d a cheap reading sums (name fewer with --schema or --table)", n, MaxHOTTables))
	default:
		out = append(out, result.SampleSeries{Name: result.HotUpdates.Name, Unit: result.Count, Exactness: result.Approx,
			Source: fmt.Sprintf("pg_stat_get_tuples_hot_updated() summed over the %d tables in scope when the window opened", len(oids)), Note: late})
	}
	return out, notes
}

// Read runs the one statement in a read-only transaction it rolls back: a
// commit would be counted in pg_stat_database.xact_commit, which the
// window measures.
func (Timeline) Read(ctx context.Context, conn *sql.Conn, s dialects.Server, objs []collectors.Object) (map[string]float64, error) {
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	oids := tables(objs)
	if oids == nil {
		oids = []int64{}
	}
	var lsn sql.NullString
	var ins, upd, del, commit, hot int64
	if err := queries.QueryRow(ctx, tx, pg.Name, "timeline", s.VersionNum, oids, s.Has(pg.CapPrimary)).Scan(&lsn, &ins, &upd, &del, &commit, &hot); err != nil {
		return nil, err
	}
	out := map[string]float64{
		result.RowsInserted.Name: float64(ins), result.RowsUpdated.Name: float64(upd), result.RowsDeleted.Name: float64(del),
		result.TransactionsCommitted.Name: float64(commit),
	}
	if lsn.Valid {
		v, err := strconv.ParseFloat(lsn.String, 64)
		if err != nil {
			return nil, fmt.Errorf("WAL position %q: %w", lsn.String, err)
		}
		out[result.LogBytes.Name] = v
	}
	if len(oids) > 0 {
		out[result.HotUpdates.Name] = float64(hot)
	}
	return out, tx.Rollback()
}
