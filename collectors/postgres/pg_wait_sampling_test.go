package postgres

import (
	"context"
	"database/sql/driver"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

func ownShares(m map[string]float64) []collectors.Counter {
	var cs []collectors.Counter
	for w, v := range m {
		cs = append(cs, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(w)), Value: v, Exactness: result.Approx, Source: "pg_stat_activity"})
	}
	return cs
}

func byMetric(cs []collectors.Counter) map[string]collectors.Counter {
	m := map[string]collectors.Counter{}
	for _, c := range cs {
		m[c.Metric] = c
	}
	return m
}

// The profile's counts of the workload's pids over the window become the
// shares: another session's samples, idle ClientRead and what was there
// before the window stay out; 1.1.4's profile has no CPU samples, so its
// split of the waiting time is scaled by pg_stat_activity's CPU share.
func TestProfileSharesDiffTheWorkloadsPids(t *testing.T) {
	t.Parallel()
	p := &profileSource{version: "1.1", period: "10", before: waitProfile{
		{"11", "Lock", "transactionid"}: 100,
		{"11", "Client", "ClientRead"}:  50,
	}}
	after := waitProfile{
		{"11", "Lock", "transactionid"}: 160, // +60
		{"11", "IO", "WALSync"}:         20,
		{"12", "LWLock", "WALWrite"}:    20,
		{"11", "Client", "ClientRead"}:  90,  // idle
		{"99", "LWLock", "WALWrite"}:    500, // not the workload's
	}
	own := ownShares(map[string]float64{
		"wait_share.CPU.running":        0.2,
		"wait_share.Lock.transactionid": 0.5,
		"wait_share.Lock.tuple":         0.1,
		"wait_share.IO.WALSync":         0.2,
		"wait_samples":                  40,
	})
	ours := func(pid string) bool { return pid == "11" || pid == "12" }
	got := byMetric(profileShares(p, after, ours, "by pid", own))
	want := map[string]float64{
		"wait_share.CPU.running":        0.2, // pg_stat_activity's
		"wait_share.Lock.transactionid": 0.8 * 60 / 100,
		"wait_share.IO.WALSync":         0.8 * 20 / 100,
		"wait_share.LWLock.WALWrite":    0.8 * 20 / 100,
		"wait_share.Lock.tuple":         0, // the profile saw none
		"wait_samples":                  40,
	}
	if len(got) != len(want) {
		t.Errorf("got %d figures, want %d: %+v", len(got), len(want), got)
	}
	for m, v := range want {
		c, ok := got[m]
		if !ok || math.Abs(c.Value-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", m, c.Value, ok, v)
		}
	}
	if c := got["wait_share.Lock.tuple"]; c.Note != "pg_stat_activity's sampler: 10.0%" || !strings.HasPrefix(c.Source, "pg_wait_sampling_profile (extension version 1.1, a sample every 10 ms)") {
		t.Errorf("Lock.tuple: source %q note %q", c.Source, c.Note)
	}
	if c := got["wait_share.IO.WALSync"]; !strings.Contains(c.Source, "100 active samples (40 idle Client.ClientRead left out)") {
		t.Errorf("counts not in the source: %q", c.Source)
	}
	if c := got["wait_share.CPU.running"]; c.Source != "pg_stat_activity" {
		t.Errorf("CPU.running should stay pg_stat_activity's: %q", c.Source)
	}
}

// A profile with samples on CPU (1.1.5+) gives the shares of the active time
// itself; a reset inside the window leaves pg_stat_activity's figures, with
// why.
func TestProfileSharesCPUAndReset(t *testing.T) {
	t.Parallel()
	own := ownShares(map[string]float64{"wait_share.CPU.running": 0.5, "wait_share.IO.WALSync": 0.5})
	ours := func(string) bool { return true }
	p := &profileSource{version: "1.1.5", before: waitProfile{}}
	got := byMetric(profileShares(p, waitProfile{{"1", "", ""}: 30, {"1", "IO", "WALSync"}: 10}, ours, "by pid", own))
	if v := got["wait_share.CPU.running"].Value; v != 0.75 || !strings.HasPrefix(got["wait_share.CPU.running"].Source, "pg_wait_sampling_profile") {
		t.Errorf("CPU.running %v from %q, want 0.75 from the profile", v, got["wait_share.CPU.running"].Source)
	}
	p = &profileSource{before: waitProfile{{"1", "IO", "WALSync"}: 10}}
	own = ownShares(map[string]float64{"wait_share.IO.WALSync": 1})
	got = byMetric(profileShares(p, waitProfile{{"1", "IO", "WALSync"}: 3}, ours, "by pid", own))
	if c := got["wait_share.IO.WALSync"]; c.Source != "pg_stat_activity" || !strings.Contains(c.Note, "reset during the window") {
		t.Errorf("after a reset: %+v", c)
	}
	if p.usable() {
		t.Error("a reset profile is still the source")
	}
}

// pg_stat_activity's LWLock.ProcArray shares say why they are low; other
// waits carry no such note.
func TestProcArrayShareIsLabelled(t *testing.T) {
	t.Parallel()
	cs := labelProcArray(ownShares(map[string]float64{
		"wait_share.LWLock.ProcArray":            0.004,
		"op_wait_share.refresh.LWLock.ProcArray": 0.01,
		"wait_share.LWLock.WALWrite":             0.3,
	}))
	for _, c := range cs {
		labelled := strings.Contains(c.Note, "under-counted: pg_stat_activity takes ProcArrayLock shared")
		if labelled != strings.HasSuffix(c.Metric, "LWLock.ProcArray") {
			t.Errorf("%s: note %q", c.Metric, c.Note)
		}
	}
}

// probeProfile runs openProfile against a probe answering row.
func probeProfile(t *testing.T, row ...driver.Value) *profileSource {
	t.Helper()
	s := dialects.Server{Dialect: pg.Name, VersionNum: 150000, Database: "app"}
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_wait_sampling_probe", s.VersionNum)).WillReturnRows(
		sqlmock.NewRows([]string{"present", "version", "period", "pid", "db"}).AddRow(row...))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return openProfile(context.Background(), conn, s)
}

// pg_wait_sampling preloaded (its settings exist) but created only in the
// measured database: the sampler, in postgres, cannot see its profile, and
// every figure of the fallback says so and how to fix it. Neither loaded
// nor created stays silent: there is nothing better to point to.
func TestProfileLoadedButNotCreatedIsSaid(t *testing.T) {
	t.Parallel()
	p := probeProfile(t, false, "", "10", "on", "postgres")
	if p.usable() || !strings.Contains(p.why, "loaded (shared_preload_libraries) but not created in postgres") ||
		!strings.Contains(p.why, "not the measured app") || !strings.Contains(p.why, "CREATE EXTENSION pg_wait_sampling in postgres") {
		t.Fatalf("loaded, not created: usable %v, why %q, unavailable %q", p.usable(), p.why, p.unavailable)
	}
	// Through the sampler's Stop: pg_stat_activity's shares carry the note.
	ctx := context.Background()
	read := func(context.Context) ([]collectors.SessionState, error) {
		return []collectors.SessionState{{Class: "IO", Event: "WALSync"}}, nil
	}
	a := &activitySampling{ctx: ctx, prof: p, close: func() {},
		shares: collectors.StartShares(ctx, time.Millisecond, "pg_stat_activity", read, nil)}
	time.Sleep(20 * time.Millisecond)
	cs, err := a.Stop()
	if err != nil || len(cs) == 0 {
		t.Fatalf("Stop: %v %v", cs, err)
	}
	for _, c := range cs {
		if !strings.Contains(c.Note, "not created in postgres") || strings.HasPrefix(c.Source, "pg_wait_sampling") {
			t.Errorf("%s: source %q note %q", c.Metric, c.Source, c.Note)
		}
	}

	if p := probeProfile(t, false, "", "", "", "postgres"); p.why != "" || p.unavailable == "" {
		t.Errorf("not on the server at all: why %q (want none), unavailable %q", p.why, p.unavailable)
	}
}
