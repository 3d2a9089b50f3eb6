package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatWAL reads the cluster's WAL statistics (14+): record and full-page
// image counts, and its own byte count as a cross-check of the LSN difference
// (they differ by page headers, about 0.5%).
//
// The counts are approx: each session adds its WAL to the view when it
// publishes its statistics (15+: when it goes idle, at most once a second,
// else up to 10 s later; 14: at most every 500 ms), so records written just
// before the window can be counted in it, and its last ones after it
// (PostgreSQL 17 counted the on-access pruning records of writeamp's own
// pre-window reads inside the window). CrossCheckStatWAL makes them exact
// for a window whose WAL was decoded and holds exactly the records counted.
type PgStatWAL struct{}

func (PgStatWAL) Name() string { return "pg_stat_wal" }

func (PgStatWAL) Supports(s dialects.Server) error {
	if !s.Has(pg.CapStatWAL) {
		return s.Unsupported(pg.CapStatWAL)
	}
	if s.Has(pg.CapStandby) {
		// Its zeros would read as "no WAL": the replayed WAL is counted
		// by the replay position and the decoder instead.
		return fmt.Errorf("%w: pg_stat_wal counts the WAL a server generates, and a standby generates none: the WAL it replayed is replayed_log_bytes (pg_last_wal_replay_lsn) and replayed_log_records (its pg_wal decoded)", dialects.ErrUnsupported)
	}
	return nil
}

// statWALLate is the note of a pg_stat_wal figure not confirmed by the WAL.
const statWALLate = "counted when sessions publish their statistics (15+: on going idle, at most once a second, or up to 10 s later; 14: every 500 ms), so it can include records written before the window and miss its last ones"

func (PgStatWAL) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var recs, fpi, bytes, full int64
	var reset string
	if err := queries.QueryRow(ctx, qr, pg.Name, "pg_stat_wal", s.VersionNum).Scan(&recs, &fpi, &bytes, &full, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	late := func(metric *result.Info, v int64, source string) collectors.Counter {
		return collectors.Counter{Key: collectors.NewKey(collectors.DB, "", metric), Value: float64(v),
			Exactness: result.Approx, Source: source, Note: statWALLate}
	}
	return withReset(reset, []collectors.Counter{
		late(result.LogRecords, recs, "pg_stat_wal.wal_records (whole cluster)"),
		late(result.FpiCount, fpi, "pg_stat_wal.wal_fpi (whole cluster; full-page images, a record can carry several)"),
		late(result.LogBytesStat, bytes, "pg_stat_wal.wal_bytes (whole cluster; excludes page headers)"),
		late(result.WalBuffersFull, full, "pg_stat_wal.wal_buffers_full"),
	}), nil
}

// CrossCheckStatWAL holds pg_stat_wal's record and byte counts against the
// records decoded from the window's WAL (log_records_decoded,
// log_bytes_decoded: every record between the two marks, whoever wrote it).
// When both agree the view counted exactly the window's records, and its
// four figures, published together with them, are exact; otherwise they stay
// approx with both counts in the note.
func CrossCheckStatWAL(d *collectors.Delta) {
	db := func(m *result.Info) collectors.Key { return collectors.NewKey(collectors.DB, "", m) }
	recs, bytes := d.Values[db(result.LogRecords)], d.Values[db(result.LogBytesStat)]
	wr, wb := d.Values[db(result.LogRecordsDecoded)], d.Values[db(result.LogBytesDecoded)]
	if !recs.OK() || !bytes.OK() || recs.Exactness != result.Approx {
		return
	}
	var note string
	switch {
	case !wr.OK() || !wb.OK():
		return // no decoded window: the figures stay approx with why
	case recs.V() == wr.V() && bytes.V() == wb.V():
		note = ""
	default:
		note = fmt.Sprintf("pg_stat_wal counted %.0f records and %.0f bytes in the window, its WAL holds %.0f records and %.0f bytes: %s", recs.V(), bytes.V(), wr.V(), wb.V(), statWALLate)
	}
	for _, m := range []*result.Info{result.LogRecords, result.FpiCount, result.LogBytesStat, result.WalBuffersFull} {
		v, ok := d.Values[db(m)]
		if !ok || !v.OK() {
			continue
		}
		if note == "" {
			v.Exactness = result.Exact
			v.Note = "equals the window's decoded WAL (" + fmt.Sprintf("%.0f records, %.0f bytes", wr.V(), wb.V()) + "): every session had published its WAL statistics at both marks"
		} else {
			v.Note = note
		}
		d.Values[db(m)] = v
	}
}
