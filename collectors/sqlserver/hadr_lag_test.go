package sqlserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var lagCols = []string{"replica_server_name", "replica_id", "log_send_queue_size", "log_send_rate", "redo_queue_size", "redo_rate", "secondary_lag_seconds"}

// TestHadrLagSamples: the queues' largest samples in bytes (the view's KB
// times 1,024), the hardening lag's p95, the rates of the last sample; a
// secondary whose columns were NULL in every sample (not reporting) gets no
// figure rather than a zero.
func TestHadrLagSamples(t *testing.T) {
	s := primary()
	db, mock := mocksql.New(t)
	// bigint columns arrive as int64, NULL as nil.
	for _, rows := range []*sqlmock.Rows{
		sqlmock.NewRows(lagCols).
			AddRow("SQL2", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C21", int64(0), int64(5120), int64(64), int64(2048), int64(0)).
			AddRow("SQL3", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C22", nil, nil, nil, nil, nil),
		sqlmock.NewRows(lagCols).
			AddRow("SQL2", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C21", int64(256), int64(6000), int64(512), int64(2100), int64(1)).
			AddRow("SQL3", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C22", nil, nil, nil, nil, nil),
		sqlmock.NewRows(lagCols).
			AddRow("SQL2", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C21", int64(10), nil, int64(0), int64(2200), int64(2)),
	} {
		mock.ExpectQuery(text(t, "hadr_lag_sample", s)).WillReturnRows(rows)
	}
	hs := &hadrLagSampling{series: map[string]*lagSeries{}}
	for range 3 {
		if err := hs.sample(ctx(), db, s); err != nil {
			t.Fatal(err)
		}
	}
	hs.poll = collectors.StartPoll(ctx(), time.Hour, func(context.Context) error { return nil })
	cs, err := hs.Stop()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"replica.SQL2.log_send_queue_bytes_max": 256 * 1024,
		"replica.SQL2.redo_queue_bytes_max":     512 * 1024,
		"replica.SQL2.flush_lag_ms_p95":         2000,
		"replica.SQL2.log_send_rate":            6000 * 1024, // the last reported: the third sample's was NULL
		"replica.SQL2.redo_rate":                2200 * 1024,
	} {
		c := find(t, cs, collectors.DB, "", name)
		if c.Value != want || c.Exactness != result.Approx || !c.Interval {
			t.Errorf("%s = %+v, want %v", name, c, want)
		}
	}
	if c := find(t, cs, collectors.DB, "", "replica.SQL2.log_send_rate"); !strings.Contains(c.Source, "not the window's") {
		t.Errorf("the rate must say it is the server's average: %q", c.Source)
	}
	for _, c := range cs {
		if strings.HasPrefix(c.Metric, "replica.SQL3.") {
			t.Errorf("a secondary that reported nothing got %+v", c)
		}
	}
}

func TestHadrLagElsewhere(t *testing.T) {
	db, _ := mocksql.New(t) // no statement: nothing to sample
	run, err := HadrLag{}.Start(ctx(), db, server(ms.Version2019), collectors.SampleTarget{})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := run.Stop(); cs != nil || err != nil {
		t.Errorf("standalone: %v %v", cs, err)
	}
	if err := (HadrLag{}).Supports(secondary()); err != nil {
		t.Errorf("a secondary samples nothing, and says nothing is missing: %v", err)
	}
	p := primary()
	p.Set(ms.CapViewServerState, false, "no")
	wantPrivilege(t, HadrLag{}.Supports(p), "VIEW SERVER PERFORMANCE STATE", "GRANT VIEW SERVER PERFORMANCE STATE TO [wa_login]")
}

// TestDeriveSecondary: on a readable secondary the rows and index entries
// operational stats read are unavailable with the probe's reason, never the
// zeros redo leaves them at; the copy's own waits stay.
func TestDeriveSecondary(t *testing.T) {
	objs := []collectors.Object{
		{Level: collectors.Table, Schema: sch, Name: "offline_user_session"},
		{Level: collectors.Index, Schema: sch, Name: "idx_user_session_expiration_last_refresh", Table: "offline_user_session"},
	}
	delta := func(s dialects.Server) *collectors.Delta {
		d := &collectors.Delta{Server: s, Objects: objs, Values: map[collectors.Key]result.Metric{}}
		d.Values[collectors.NewKey(collectors.Table, sch+".offline_user_session", result.RowsInserted)] = result.New(0, result.Derived, opStats+".leaf_insert_count")
		d.Values[collectors.NewKey(collectors.Index, sch+".idx_user_session_expiration_last_refresh", result.LeafInserts)] = result.New(0, result.Exact, opStats+".leaf_insert_count")
		d.Values[collectors.NewKey(collectors.Index, sch+".idx_user_session_expiration_last_refresh", result.PageLatchWaits)] = result.New(3, result.Exact, opStats+".page_latch_wait_count")
		DeriveSecondary(d)
		return d
	}
	d := delta(secondary())
	for _, k := range []collectors.Key{
		collectors.NewKey(collectors.Table, sch+".offline_user_session", result.RowsInserted),
		collectors.NewKey(collectors.Table, sch+".offline_user_session", result.RowsDeleted),
		collectors.NewKey(collectors.Index, sch+".idx_user_session_expiration_last_refresh", result.LeafInserts),
		collectors.NewKey(collectors.Index, sch+".idx_user_session_expiration_last_refresh", result.LeafPageSplits),
	} {
		if m := d.Values[k]; m.Exactness != result.Unavailable || m.Value != nil || !strings.Contains(m.Note, "redo applies the primary's log") {
			t.Errorf("%s = %+v", k, m)
		}
	}
	if m := d.Values[collectors.NewKey(collectors.Index, sch+".idx_user_session_expiration_last_refresh", result.PageLatchWaits)]; m.V() != 3 {
		t.Errorf("the secondary's own latch waits are kept: %+v", m)
	}
	if m := delta(primary()).Values[collectors.NewKey(collectors.Table, sch+".offline_user_session", result.RowsInserted)]; !m.OK() {
		t.Errorf("a primary's counts stay: %+v", m)
	}
}
