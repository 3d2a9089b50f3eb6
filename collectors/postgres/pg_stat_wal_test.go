package postgres

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// statWALDelta is a window as PgStatWAL's Collect and the decoder leave it:
// the view's four figures approx with statWALLate, the decoded ones exact
// (absent when decoded is nil: no WAL read).
func statWALDelta(recs, bytes float64, decoded []float64) *collectors.Delta {
	d := &collectors.Delta{Values: map[collectors.Key]result.Metric{}}
	put := func(m *result.Info, v float64, e result.Exactness, note string) {
		x := result.New(v, e, "src")
		x.Note = note
		d.Values[collectors.NewKey(collectors.DB, "", m)] = x
	}
	put(result.LogRecords, recs, result.Approx, statWALLate)
	put(result.FpiCount, 7, result.Approx, statWALLate)
	put(result.LogBytesStat, bytes, result.Approx, statWALLate)
	put(result.WalBuffersFull, 0, result.Approx, statWALLate)
	if decoded != nil {
		put(result.LogRecordsDecoded, decoded[0], result.Exact, "")
		put(result.LogBytesDecoded, decoded[1], result.Exact, "")
	}
	return d
}

func statWALFigures(d *collectors.Delta) map[string]result.Metric {
	out := map[string]result.Metric{}
	for _, m := range []*result.Info{result.LogRecords, result.FpiCount, result.LogBytesStat, result.WalBuffersFull} {
		out[m.Name] = d.Get(collectors.NewKey(collectors.DB, "", m))
	}
	return out
}

// The view's figures are exact only when its records and bytes equal the
// decoded window's; otherwise (issue 27: +8 records, +46,361 B on 17) they
// stay approx and the note gives both counts; without a decoded window
// nothing can confirm them.
func TestCrossCheckStatWAL(t *testing.T) {
	t.Parallel()
	d := statWALDelta(120, 9800, []float64{120, 9800})
	CrossCheckStatWAL(d)
	for name, m := range statWALFigures(d) {
		if m.Exactness != result.Exact || !strings.Contains(m.Note, "equals the window's decoded WAL (120 records, 9800 bytes)") {
			t.Errorf("equal: %s is %s, note %q", name, m.Exactness, m.Note)
		}
	}

	d = statWALDelta(128, 56161, []float64{120, 9800})
	CrossCheckStatWAL(d)
	for name, m := range statWALFigures(d) {
		if m.Exactness != result.Approx || !strings.Contains(m.Note, "pg_stat_wal counted 128 records and 56161 bytes in the window, its WAL holds 120 records and 9800 bytes") {
			t.Errorf("different: %s is %s, note %q", name, m.Exactness, m.Note)
		}
	}
	// The bytes alone differing is enough: the records agreeing by chance
	// does not make the view's figures the window's.
	d = statWALDelta(120, 9801, []float64{120, 9800})
	CrossCheckStatWAL(d)
	if m := statWALFigures(d)[result.LogRecords.Name]; m.Exactness != result.Approx {
		t.Errorf("bytes differ by one: log_records is %s", m.Exactness)
	}

	d = statWALDelta(120, 9800, nil)
	CrossCheckStatWAL(d)
	for name, m := range statWALFigures(d) {
		if m.Exactness != result.Approx || m.Note != statWALLate {
			t.Errorf("no decoder: %s is %s, note %q", name, m.Exactness, m.Note)
		}
	}
}
