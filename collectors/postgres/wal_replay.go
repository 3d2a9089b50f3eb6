package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// WalReplay reads a standby's replay position: the difference of two
// readings is the primary's WAL this standby applied in between. It is the
// standby's MarkLSN, so the decoder reads the replayed records from the
// standby's own pg_wal.
type WalReplay struct{}

// MarkPosition names what MarkLSN holds: "insert" on a primary, "replay" on
// a standby.
const MarkPosition = "wal_position"

func (WalReplay) Name() string { return "wal_replay" }

// Supports is nil on a primary too, where it reads nothing: a primary's
// WAL is read at its insert position (WalLSN), and listing the replay
// position as missing on every primary would be noise in every report.
func (WalReplay) Supports(s dialects.Server) error { return nil }

// standbyPos is one reading of a standby's positions.
type standbyPos struct {
	lsn             string  // replayed, as an LSN: the decoder's mark
	replayed, recvd float64 // bytes from 0/0; recvd -1: no WAL receiver
	pause           string  // pg_get_wal_replay_pause_state()
}

func (WalReplay) read(ctx context.Context, qr dialects.Querier, s dialects.Server) (standbyPos, error) {
	var p standbyPos
	var replayed, recvd string
	if err := queries.QueryRow(ctx, qr, pg.Name, "wal_replay_lsn", s.VersionNum).Scan(&p.lsn, &replayed, &recvd, &p.pause); err != nil {
		return p, err
	}
	var err error
	if p.replayed, err = strconv.ParseFloat(replayed, 64); err != nil {
		return p, err
	}
	p.recvd = -1
	if recvd != "" {
		if p.recvd, err = strconv.ParseFloat(recvd, 64); err != nil {
			return p, err
		}
	}
	return p, nil
}

// The marks of a standby's positions beside MarkLSN (the replayed LSN):
// bytes from 0/0 replayed and received ("" with no WAL receiver), and the
// replay pause state. A diff of two snapshot files reads them too.
const (
	markReplayed = "standby_replayed"
	markReceived = "standby_received"
	markPause    = "standby_replay_pause"
)

func (w WalReplay) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(pg.CapStandby) {
		return nil, nil
	}
	p, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	m := map[string]string{MarkLSN: p.lsn, MarkPosition: "replay", markPause: p.pause,
		markReplayed: strconv.FormatFloat(p.replayed, 'f', -1, 64), markReceived: ""}
	if p.recvd >= 0 {
		m[markReceived] = strconv.FormatFloat(p.recvd, 'f', -1, 64)
	}
	return m, nil
}

func (w WalReplay) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if !s.Has(pg.CapStandby) {
		return nil, nil
	}
	p, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	const src = "pg_last_wal_replay_lsn() difference (the primary's WAL this standby replayed; includes WAL page headers)"
	// log_bytes is the replayed bytes until DeriveStandby finds what the
	// standby received: a standby with no WAL receiver (archive recovery)
	// writes no log of its own beyond what it replays.
	return []collectors.Counter{
		exact(collectors.DB, "", result.ReplayedLogBytes, p.replayed, src, ""),
		exact(collectors.DB, "", result.LogBytes, p.replayed, src, ""),
	}, nil
}

// standbyUnavailable is why a standby's row counters are no figure of the
// window: replay applies the primary's changes without counting them.
const standbyUnavailable = "unavailable: a standby does not count replayed rows"

// standbyRowMetrics are the pg_stat_user_tables counters replay leaves at zero.
var standbyRowMetrics = []*result.Info{result.RowsInserted, result.RowsUpdated, result.RowsDeleted, result.HotUpdates, result.AutovacuumRuns, result.AutoanalyzeRuns, result.VacuumRuns}

// DeriveStandby replaces, on a standby, the row counters the diff read as
// zero with "unavailable" (never a false zero), and the pg_stat_user_tables
// newpage count with the WAL's where the decoder read it. It runs before the
// other derivers, so the HOT ratio and derived leaf inserts are unavailable
// too rather than computed from zeros.
func DeriveStandby(d *collectors.Delta) {
	if !d.Server.Has(pg.CapStandby) {
		return
	}
	d.Unavailable(collectors.Table, standbyRowMetrics, "pg_stat_user_tables on a standby", standbyUnavailable)
	for _, o := range d.Objects {
		if o.Level != collectors.Table {
			continue
		}
		k := collectors.NewKey(collectors.Table, o.FQN(), result.NewpageUpdates)
		if m, ok := d.Values[k]; ok && strings.HasPrefix(m.Source, "pg_stat_user_tables") {
			d.Values[k] = result.NA("pg_stat_user_tables on a standby", standbyUnavailable)
		}
	}
}

// markFloat is a numeric mark, false when absent or empty.
func markFloat(snap *collectors.Snapshot, name string) (float64, bool) {
	if snap == nil || snap.Marks[name] == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(snap.Marks[name], 64)
	return v, err == nil
}

// walReadMetrics are the figures read from the WAL between the replay
// positions (pg_wal.go): on a standby they count only what was replayed.
var walReadMetrics = map[string]bool{}

func init() {
	for _, m := range []*result.Info{result.LogBytes, result.LogRecords, result.FpiBytes, result.FpiCount, result.PagesTouched, result.NewpageUpdates,
		result.LeafInserts, result.LeafPageSplits, result.LogBytesOtherObjects, result.LogRecordsDecoded, result.LogBytesDecoded, result.LogBytesInScope,
		result.LogBytesOther, result.ReplayedLogRecords} {
		walReadMetrics[m.Name] = true
	}
}

// replayDependent is whether a standby's figure counts only the WAL it
// replayed: what was read from its pg_wal between the replay positions
// (the decoder's figures, whatever their name) and the replayed bytes.
func replayDependent(k collectors.Key, m result.Metric) bool {
	if k.Metric == result.ReplayedLogBytes.Name {
		return true
	}
	if k.Level == collectors.DB && k.Metric == result.LogBytes.Name {
		return false // the received bytes (deriveReceived) or the replayed ones, handled there
	}
	return walReadMetrics[k.Metric] || strings.HasPrefix(m.Source, "writeamp's WAL decoder") || strings.HasPrefix(m.Source, "pg_walinspect")
}

// DeriveReceived adds what the standby received in the window (its WAL
// receiver's flushed position), which is the log it wrote to its own
// pg_wal, and, when it did not replay all of it within the window (replay
// paused, or behind at either end), says so and takes exactness from every
// figure that counts only the replayed WAL: a paused standby's zeros are
// no figure of the window's cost, which it pays when replay resumes.
//
// It runs after the other derivers, so no figure they derived from the
// replayed WAL's keeps its exactness, and none of them fills in a figure it
// made unavailable.
func DeriveReceived(d *collectors.Delta) {
	if !d.Server.Has(pg.CapStandby) {
		return
	}
	rc0, ok0 := markFloat(d.Before, markReceived)
	rc1, ok1 := markFloat(d.After, markReceived)
	rp0, okp0 := markFloat(d.Before, markReplayed)
	rp1, okp1 := markFloat(d.After, markReplayed)
	if !okp0 || !okp1 {
		return // snapshots taken before these marks were kept
	}
	recvKey := collectors.NewKey(collectors.DB, "", result.ReceivedLogBytes)
	const recvSrc = "pg_last_wal_receive_lsn() difference (the primary's WAL this standby received and flushed to its own pg_wal; includes WAL page headers)"
	received := -1.0
	switch {
	case !ok0 || !ok1:
		d.Values[recvKey] = result.NA("pg_last_wal_receive_lsn()", "the standby had no WAL receiver at the window's start or end (archive recovery, or reconnecting): it received nothing by streaming")
	case rc1 < rc0:
		d.Values[recvKey] = result.NA("pg_last_wal_receive_lsn()", "the received position went back (the WAL receiver restarted from an earlier point)")
	default:
		received = rc1 - rc0
		d.Values[recvKey] = result.New(received, result.Exact, recvSrc)
		if rc0 < rp0 {
			// A WAL receiver (re)starts streaming at the start of the
			// segment replay is in, and its position starts there.
			m := d.Values[recvKey]
			m.Note = fmt.Sprintf("the receive position was %.0f bytes behind replay at the window's start (the WAL receiver streams from the start of the segment replay is in): this includes WAL streamed again that the standby already had", rp0-rc0)
			d.Values[recvKey] = m
		}
	}
	var why []string
	p0, p1 := d.Before.Marks[markPause], d.After.Marks[markPause]
	if paused := p0 != "not paused" || p1 != "not paused"; paused {
		why = append(why, fmt.Sprintf("replay was paused (pg_get_wal_replay_pause_state(): %q at the window's start, %q at its end; pg_wal_replay_resume() resumes it)", p0, p1))
	}
	if ok0 && rc0 > rp0 {
		why = append(why, fmt.Sprintf("%.0f bytes received before the window were not yet replayed at its start (replay lag)", rc0-rp0))
	}
	if ok1 && rc1 > rp1 {
		why = append(why, fmt.Sprintf("%.0f bytes received were not yet replayed at the window's end (replay lag)", rc1-rp1))
	}
	if len(why) == 0 {
		return
	}
	if received >= 0 {
		// Its own log is what it wrote to its pg_wal: the WAL it received,
		// replayed or not. (A standby that kept up keeps the replayed
		// bytes, the same WAL without what a restarted WAL receiver streams
		// again.)
		d.Values[collectors.NewKey(collectors.DB, "", result.LogBytes)] = d.Values[recvKey]
	}
	replayed := rp1 - rp0
	got := "what it received is unavailable"
	if received >= 0 {
		got = fmt.Sprintf("it received %.0f bytes of WAL in the window and replayed %.0f", received, replayed)
	}
	reason := "the standby did not replay within the window: " + strings.Join(why, "; ") + "; " + got
	none := replayed <= 0
	what := "figures read from the replayed WAL count only what was replayed (approx, a part of the window's)"
	if none {
		what = "figures read from the replayed WAL are unavailable: nothing was replayed"
	}
	d.Warn(collectors.WarnOther, "", "replay", reason+"; "+what)
	for k, m := range d.Values {
		if (m.Exactness != result.Exact && m.Exactness != result.Derived) || !replayDependent(k, m) {
			continue
		}
		if none && k.Metric != result.ReplayedLogBytes.Name {
			d.Values[k] = result.NA(m.Source, "unavailable: "+reason)
			continue
		}
		m.Exactness, m.Note = result.Approx, joinNotes(m.Note, reason)
		d.Values[k] = m
	}
	if lb := collectors.NewKey(collectors.DB, "", result.LogBytes); received < 0 && d.Values[lb].Exactness == result.Exact {
		// The replayed bytes stand in for the standby's log: no more exact
		// than they are.
		m := d.Values[lb]
		m.Exactness, m.Note = result.Approx, joinNotes(m.Note, reason)
		d.Values[lb] = m
	}
}
