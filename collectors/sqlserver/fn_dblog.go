package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// Per-index log bytes come from sys.fn_dblog, the (undocumented, sysadmin
// only) reader of the active transaction log. It is an IntervalCollector, not
// a counter collector, because the log has no cumulative per-index total to
// diff: what exists is the records themselves, readable only while they are
// in the active log. So each snapshot marks the log's end (FnDblogMark), and
// after the window FnDblog sums the records between the two marks per
// allocation unit. If a checkpoint truncated the log inside the window (SIMPLE
// recovery), the first records are gone and the figures are refused, not
// reported short.

// MarkLogEnd is the snapshot mark holding fn_dblog's last [Current LSN].
const MarkLogEnd = "fn_dblog_end_lsn"

// markError is the mark recording why no LSN could be read, so that the
// interval collector can say it.
const markError = "fn_dblog_error"

const dblog = "sys.fn_dblog"

// FnDblogMark records the end of the log in each snapshot. It always
// "supports" the server so that a login without sysadmin gets one line about
// the missing per-index log bytes (from FnDblog), not two.
type FnDblogMark struct{}

func (FnDblogMark) Name() string                   { return "fn_dblog_mark" }
func (FnDblogMark) Supports(dialects.Server) error { return nil }

// Marks never fails the snapshot (a failing Marker aborts it): a read error
// is recorded for FnDblog to report.
func (FnDblogMark) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(ms.CapFnDblog) {
		return nil, nil
	}
	var lsn sql.NullString
	if err := queries.QueryRow(ctx, qr, ms.Name, "fn_dblog_end_lsn", s.VersionNum).Scan(&lsn); err != nil {
		return map[string]string{markError: err.Error()}, nil
	}
	return map[string]string{MarkLogEnd: lsn.String}, nil
}

// FnDblog reads the log records of the window per index.
type FnDblog struct{}

func (FnDblog) Name() string { return "fn_dblog" }

func (FnDblog) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if !s.Has(ms.CapFnDblog) {
		if s.Flavor == ms.FlavorAzureSQLDatabase {
			return s.Unsupported(ms.CapFnDblog)
		}
		return &dialects.PrivilegeError{Privilege: "sysadmin (sys.fn_dblog)",
			Grant: "ALTER SERVER ROLE sysadmin ADD MEMBER " + ms.QuoteIdent(login(s)) + " -- a test server only"}
	}
	return nil
}

func login(s dialects.Server) string {
	if l := s.Prop(ms.PropLogin); l != "" {
		return l
	}
	return s.User
}

func (FnDblog) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	for _, snap := range []*collectors.Snapshot{before, after} {
		if e := snap.Marks[markError]; e != "" {
			return nil, fmt.Errorf("could not read the end of the log: %s", e)
		}
	}
	start, end := before.Marks[MarkLogEnd], after.Marks[MarkLogEnd]
	if start == "" || end == "" {
		return nil, fmt.Errorf("no log positions in the snapshots")
	}
	var first sql.NullString
	if err := queries.QueryRow(ctx, qr, ms.Name, "fn_dblog_min_lsn", s.VersionNum).Scan(&first); err != nil {
		return nil, err
	}
	if first.Valid && first.String > start {
		return nil, fmt.Errorf("the log was truncated inside the window (its first record %s is after the window's start %s): a checkpoint in %s recovery removed records; use FULL recovery or a shorter run for per-index log bytes",
			first.String, start, recoveryModel(s))
	}
	rows, err := queries.Query(ctx, qr, ms.Name, "fn_dblog", s.VersionNum, start, end)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type agg struct{ recs, bytes float64 }
	perUnit := map[string]*agg{}
	var total agg
	for rows.Next() {
		var unit sql.NullString
		var recs int64
		var bytes sql.NullInt64
		if err := rows.Scan(&unit, &recs, &bytes); err != nil {
			return nil, err
		}
		total.recs += float64(recs)
		total.bytes += float64(bytes.Int64)
		u := strings.ToLower(unit.String)
		a := perUnit[u]
		if a == nil {
			a = &agg{}
			perUnit[u] = a
		}
		a.recs += float64(recs)
		a.bytes += float64(bytes.Int64)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	iv := func(level collectors.Level, obj string, metric *result.Info, v float64, source string) collectors.Counter {
		return collectors.Counter{Key: collectors.NewKey(level, obj, metric), Value: v, Exactness: result.Exact, Source: source, Interval: true,
			Note: "read from sys.fn_dblog (undocumented; needs sysadmin)"}
	}
	var out []collectors.Counter
	seen := map[string]bool{}
	for _, o := range after.Objects {
		if seen[string(o.Level)+o.FQN()] {
			continue
		}
		seen[string(o.Level)+o.FQN()] = true
		switch o.Level {
		case collectors.Index:
			// AllocUnitName is "schema.table.index" (LOB and row-overflow
			// units of the index carry the same name).
			a := perUnit[strings.ToLower(o.Schema+"."+o.Table+"."+o.Name)]
			if a == nil {
				a = &agg{}
			}
			out = append(out,
				iv(o.Level, o.FQN(), result.LogBytes, a.bytes, dblog+": sum([Log Record Length]) of records on this index's allocation units"),
				iv(o.Level, o.FQN(), result.LogRecords, a.recs, dblog+": records on this index's allocation units"))
		case collectors.Table:
			// Every allocation unit of the table: heap ("schema.table") and all its indexes.
			var a agg
			prefix := strings.ToLower(o.Schema + "." + o.Name)
			for u, x := range perUnit {
				if u == prefix || strings.HasPrefix(u, prefix+".") {
					a.recs += x.recs
					a.bytes += x.bytes
				}
			}
			out = append(out,
				iv(o.Level, o.FQN(), result.LogBytes, a.bytes, dblog+": sum([Log Record Length]) of records on the table's heap or indexes"),
				iv(o.Level, o.FQN(), result.LogRecords, a.recs, dblog+": records on the table's heap or indexes"))
		}
	}
	out = append(out,
		iv(collectors.DB, "", result.LogRecords, total.recs, dblog+": every record of this database in the window"),
		iv(collectors.DB, "", result.LogRecordBytes, total.bytes, dblog+": sum([Log Record Length]) of every record of this database in the window (logical bytes, no sector padding)"))
	return out, nil
}

func recoveryModel(s dialects.Server) string {
	if r := s.Prop(ms.PropRecoveryModel); r != "" {
		return r
	}
	return "its"
}

// DeriveLogBytesUnavailable says, per index, why there are no log bytes when
// fn_dblog could not run: "unavailable" with the reason, not a silent gap.
func DeriveLogBytesUnavailable(d *collectors.Delta) {
	why := d.Server.Why(ms.CapFnDblog)
	for _, m := range d.Missing {
		if m.Collector == (FnDblog{}).Name() {
			why = m.Reason
			if m.Fix != "" {
				why += " (fix: " + m.Fix + ")"
			}
		}
	}
	for _, o := range d.Objects {
		if o.Level != collectors.Index {
			continue
		}
		d.Put(collectors.NewKey(collectors.Index, o.FQN(), result.LogBytes), result.NA(dblog, "per-index log bytes need sys.fn_dblog: "+why))
	}
}
