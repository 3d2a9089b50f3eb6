package postgres

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/result"
)

// standbyDelta is a standby's window: its marks before and after, and the
// decoder's figures of the replayed WAL.
func standbyDelta(before, after map[string]string, vals map[string]float64) *collectors.Delta {
	d := delta(vals)
	d.Server = dialects.Server{Caps: map[string]bool{}}
	d.Server.Set(pg.CapStandby, true, "")
	d.Before, d.After = &collectors.Snapshot{Marks: before}, &collectors.Snapshot{Marks: after}
	return d
}

func standbyMarks(replayed, received, pause string) map[string]string {
	return map[string]string{markReplayed: replayed, markReceived: received, markPause: pause}
}

// A paused standby received the window's WAL and replayed none of it: what
// it received is exact and its log; nothing read from the replayed WAL is
// an exact 0, and a warning names the pause.
func TestDeriveReceivedPausedStandby(t *testing.T) {
	t.Parallel()
	d := standbyDelta(standbyMarks("1000", "1000", "paused"), standbyMarks("1000", "2301000", "paused"), map[string]float64{
		"database::replayed_log_bytes": 0, "database::log_bytes": 0, "database::replayed_log_records": 0, "database::fpi_bytes": 0,
		"index:s.t_pkey:leaf_inserts": 0, "table:s.t:log_bytes": 0, "index:s.t_pkey:scans": 0,
	})
	DeriveReceived(d)
	for _, name := range []string{"received_log_bytes", "log_bytes"} {
		if m := d.Get(collectors.Key{Level: collectors.DB, Metric: name}); !m.OK() || m.V() != 2_300_000 || m.Exactness != result.Exact {
			t.Errorf("%s %+v, want 2300000 exact", name, m)
		}
	}
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.ReplayedLogBytes)); !m.OK() || m.V() != 0 || m.Exactness != result.Approx || !strings.Contains(m.Note, "replay was paused") {
		t.Errorf("replayed_log_bytes %+v, want 0 approx with the pause named", m)
	}
	for _, k := range []collectors.Key{{Level: collectors.DB, Metric: "replayed_log_records"}, {Level: collectors.DB, Metric: "fpi_bytes"},
		{Level: collectors.Index, Object: "s.t_pkey", Metric: "leaf_inserts"}, {Level: collectors.Table, Object: "s.t", Metric: "log_bytes"}} {
		if m := d.Get(k); m.Exactness != result.Unavailable || !strings.Contains(m.Note, "did not replay within the window") {
			t.Errorf("%s %+v, want unavailable: nothing was replayed", k, m)
		}
	}
	// A read-side counter is the standby's own, not replay's.
	if m := d.Get(collectors.Key{Level: collectors.Index, Object: "s.t_pkey", Metric: "scans"}); m.Exactness != result.Exact {
		t.Errorf("scans %+v, want left exact", m)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Text, `"paused"`) || !strings.Contains(d.Warnings[0].Text, "received 2300000 bytes") {
		t.Errorf("warnings %v, want one naming the pause and the bytes received", d.WarningTexts())
	}
}

// A standby that replayed part of what it received (lagging, not paused):
// the replayed figures are kept, approx.
func TestDeriveReceivedLaggingStandby(t *testing.T) {
	t.Parallel()
	d := standbyDelta(standbyMarks("1000", "1000", "not paused"), standbyMarks("5000", "9000", "not paused"), map[string]float64{
		"database::replayed_log_bytes": 4000, "database::log_bytes": 4000, "index:s.t_pkey:leaf_inserts": 12,
	})
	DeriveReceived(d)
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.LogBytes)); m.V() != 8000 || m.Exactness != result.Exact {
		t.Errorf("log_bytes %+v, want the 8000 received, exact", m)
	}
	if m := d.Get(collectors.Key{Level: collectors.Index, Object: "s.t_pkey", Metric: "leaf_inserts"}); m.V() != 12 || m.Exactness != result.Approx || !strings.Contains(m.Note, "4000 bytes received were not yet replayed") {
		t.Errorf("leaf_inserts %+v, want 12 approx, the lag named", m)
	}
}

// A standby that kept up: received equals replayed, everything stays exact
// and nothing is said.
func TestDeriveReceivedCaughtUp(t *testing.T) {
	t.Parallel()
	d := standbyDelta(standbyMarks("1000", "1000", "not paused"), standbyMarks("5000", "5000", "not paused"), map[string]float64{
		"database::replayed_log_bytes": 4000, "database::log_bytes": 4000, "index:s.t_pkey:leaf_inserts": 12,
	})
	DeriveReceived(d)
	for k, m := range d.Values {
		if m.Exactness != result.Exact {
			t.Errorf("%s %+v, want exact", k, m)
		}
	}
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.ReceivedLogBytes)); m.V() != 4000 {
		t.Errorf("received_log_bytes %+v, want 4000", m)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %v", d.WarningTexts())
	}
}
