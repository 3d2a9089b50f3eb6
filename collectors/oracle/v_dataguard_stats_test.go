package oracle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

func TestParseLag(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"+00 00:00:05":     5 * time.Second,
		"+00 00:00:00":     0,
		"+01 02:03:04":     26*time.Hour + 3*time.Minute + 4*time.Second,
		" +00 00:01:30 ":   90 * time.Second,
		"+00 00:00:01.250": 1250 * time.Millisecond,
		"00 00:00:07":      7 * time.Second,
	} {
		if got, ok := parseLag(in); !ok || got != want {
			t.Errorf("parseLag(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	// NULL (''), a negative interval, a bare number of seconds and
	// impossible fields are no lag: never read as 0.
	for _, bad := range []string{"", "-00 00:00:05", "5", "+00 24:00:00", "+00 00:60:00", "+00 0:0:5", "unknown"} {
		if got, ok := parseLag(bad); ok {
			t.Errorf("parseLag(%q) = %v, want no value", bad, got)
		}
	}
	if age, ok := datumAge("01/02/2026 03:04:07", "01/02/2026 03:04:05"); !ok || age != 2 {
		t.Errorf("datumAge = %v %v", age, ok)
	}
	if _, ok := datumAge("02-JAN-26", "01/02/2026 03:04:05"); ok {
		t.Error("an unknown time format is no age")
	}
}

var dgCols = []string{"name", "value", "unit", "time_computed", "datum_time"}

const dgUnit = "day(2) to second(0) interval"

// sampled runs the sampler's reading once per rows, as its poll would, and
// stops it.
func sampled(t *testing.T, s dialects.Server, reads ...*sqlmock.Rows) ([]collectors.Counter, error) {
	t.Helper()
	db, mock := mocksql.New(t)
	for _, r := range reads {
		mock.ExpectQuery(text(t, "v_dataguard_stats", s)).WillReturnRows(r)
	}
	ds := &dgSampling{lags: map[string]*lagSeries{}, name: s.Prop("db_unique_name")}
	ds.poll = collectors.StartPoll(context.Background(), time.Hour, func(context.Context) error { return nil })
	for range reads {
		if err := ds.sample(ctx(), db, s); err != nil {
			t.Fatal(err)
		}
	}
	return ds.Stop()
}

// TestDataguardLagsSampled: apply lag is the standby's replay lag, transport
// lag its own family member, both approx and in milliseconds from the
// interval text.
func TestDataguardLagsSampled(t *testing.T) {
	s := standbyServer()
	row := func(apply, transport, datum string) *sqlmock.Rows {
		return sqlmock.NewRows(dgCols).
			AddRow("transport lag", transport, dgUnit, "01/02/2026 03:04:10", datum).
			AddRow("apply lag", apply, dgUnit, "01/02/2026 03:04:10", datum)
	}
	cs, err := sampled(t, s, row("+00 00:00:02", "+00 00:00:00", "01/02/2026 03:04:09"),
		row("+00 00:00:05", "+00 00:00:01", "01/02/2026 03:04:10"),
		row("+00 00:00:03", "+00 00:00:00", "01/02/2026 03:04:11"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"replay_lag_ms_p50": 3000, "replay_lag_ms_max": 5000,
		"replica.boston_sby.transport_lag_ms_p95": 1000, "replica.boston_sby.transport_lag_ms_max": 1000}
	for m, v := range want {
		c := find(t, cs, collectors.DB, "", m)
		if c.Value != v || c.Exactness != result.Approx || !strings.Contains(c.Source, "V$DATAGUARD_STATS") || !strings.Contains(c.Source, "3 samples") {
			t.Errorf("%s = %+v, want %v", m, c, v)
		}
	}
	if i, ok := result.Lookup("replica.boston_sby.transport_lag_ms_p95"); !ok || i.Unit != result.Millis || !strings.Contains(i.Label, "standby boston_sby") {
		t.Errorf("the transport lag is a catalogue family name: %+v", i)
	}
}

// TestDataguardLagsNotCurrent: a DATUM_TIME that never changed means the
// standby received nothing (documented), so that lag is not reported; lags
// never computed (NULL) are not zeros either; with nothing usable the
// sampler's reason is typed.
func TestDataguardLagsNotCurrent(t *testing.T) {
	s := standbyServer()
	stale := func() *sqlmock.Rows {
		return sqlmock.NewRows(dgCols).
			AddRow("transport lag", "+00 00:00:00", dgUnit, "01/02/2026 03:04:10", "01/02/2026 03:00:00").
			AddRow("apply lag", nil, dgUnit, "01/02/2026 03:04:10", nil)
	}
	_, err := sampled(t, s, stale(), stale())
	r := dialects.ReasonOf(err)
	if r.Kind != dialects.Unreadable || !strings.Contains(r.Text, "received no data from the primary") || !strings.Contains(r.Text, "no 'apply lag' value") {
		t.Errorf("reason = %+v", r)
	}

	applyOnly := func(v, datum string) *sqlmock.Rows {
		return sqlmock.NewRows(dgCols).
			AddRow("transport lag", "+00 00:00:00", dgUnit, "01/02/2026 03:04:10", "01/02/2026 03:00:00").
			AddRow("apply lag", v, dgUnit, "01/02/2026 03:04:10", datum)
	}
	cs, err := sampled(t, s, applyOnly("+00 00:00:04", "01/02/2026 03:04:08"), applyOnly("+00 00:00:06", "01/02/2026 03:04:09"))
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "replay_lag_ms_max"); c.Value != 6000 || !strings.Contains(c.Note, "'transport lag' was computed from one DATUM_TIME") ||
		!strings.Contains(c.Note, "up to 2 s old") {
		t.Errorf("apply lag = %+v", c)
	}
	for _, c := range cs {
		if strings.Contains(c.Metric, "transport") {
			t.Errorf("a stale transport lag is not reported: %+v", c)
		}
	}
}

// TestDataguardSamplerOnAPrimary: nothing is sampled, nothing is missing.
func TestDataguardSamplerOnAPrimary(t *testing.T) {
	db, _ := mocksql.New(t)
	run, err := VDataguardStats{}.Start(ctx(), db, server(), collectors.SampleTarget{})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := run.Stop(); cs != nil || err != nil {
		t.Errorf("a primary: %v %v", cs, err)
	}
	if err := (VDataguardStats{}).Supports(server()); err != nil {
		t.Errorf("supported on a primary (it reads nothing there): %v", err)
	}
}
