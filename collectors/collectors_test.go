package collectors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

func snap(cs ...Counter) *Snapshot {
	return &Snapshot{Server: dialects.Server{Dialect: "postgres", Identity: "sys1/db", Database: "db"}, Counters: cs, TakenAt: time.Now()}
}

func c(level Level, obj, metric string, v float64, id string) Counter {
	return Counter{Key: Key{Level: level, Object: obj, Metric: metric}, Value: v, Exactness: result.Exact, Source: "src." + metric, Identity: id}
}

func TestDiffSubtractsAndKeepsSource(t *testing.T) {
	t.Parallel()
	d, err := Diff(snap(c(Table, "s.t", "rows_updated", 100, "1")), snap(c(Table, "s.t", "rows_updated", 250, "1")))
	if err != nil {
		t.Fatal(err)
	}
	m := d.Get(Key{Table, "s.t", "rows_updated"})
	if !m.OK() || m.V() != 150 || m.Exactness != result.Exact || m.Source != "src.rows_updated" {
		t.Errorf("got %+v", m)
	}
	if len(d.Resets) != 0 || len(d.Warnings) != 0 {
		t.Errorf("no reset expected: %v %v", d.Resets, d.Warnings)
	}
}

func TestDiffCounterThatWentDownIsAReset(t *testing.T) {
	t.Parallel()
	d, _ := Diff(snap(c(Index, "s.i", "leaf_inserts", 15020, "7")), snap(c(Index, "s.i", "leaf_inserts", 12, "7")))
	m := d.Get(Key{Index, "s.i", "leaf_inserts"})
	if m.OK() || m.Exactness != result.Unavailable || !strings.Contains(m.Note, "reset") {
		t.Errorf("a counter that went down must be unavailable with 'reset', got %+v", m)
	}
	if len(d.Resets) != 1 || len(d.Warnings) != 1 {
		t.Errorf("resets %v warnings %v", d.Resets, d.Warnings)
	}
}

func TestDiffRecreatedObjectIsAReset(t *testing.T) {
	t.Parallel()
	// Same name, higher counter, but a new identity: not a delta at all.
	d, _ := Diff(snap(c(Table, "s.t", "rows_inserted", 10, "100")), snap(c(Table, "s.t", "rows_inserted", 500, "200")))
	if m := d.Get(Key{Table, "s.t", "rows_inserted"}); m.OK() || !strings.Contains(m.Note, "recreated") {
		t.Errorf("got %+v", m)
	}
}

func TestDiffNewObjectCountsFromCreation(t *testing.T) {
	t.Parallel()
	d, _ := Diff(snap(), snap(c(Table, "s.new", "rows_inserted", 42, "9")))
	m := d.Get(Key{Table, "s.new", "rows_inserted"})
	if m.V() != 42 || !strings.Contains(m.Note, "created during the window") {
		t.Errorf("got %+v", m)
	}
}

func TestDiffGaugeMayShrinkAndIntervalIsTakenAsIs(t *testing.T) {
	t.Parallel()
	g := c(Table, "s.t", "size_bytes", 8192, "1")
	g.Gauge = true
	g2 := g
	g2.Value = 0
	iv := c(Index, "s.i", "leaf_inserts", 77, "")
	iv.Interval = true
	d, _ := Diff(snap(g), snap(g2, iv))
	if m := d.Get(Key{Table, "s.t", "size_bytes"}); !m.OK() || m.V() != -8192 {
		t.Errorf("gauge: %+v", m)
	}
	if m := d.Get(Key{Index, "s.i", "leaf_inserts"}); m.V() != 77 {
		t.Errorf("interval: %+v", m)
	}
}

func TestDiffRefusesOtherServersAndRestarts(t *testing.T) {
	t.Parallel()
	a, b := snap(), snap()
	b.Server.Identity = "sys2/db"
	if _, err := Diff(a, b); err == nil || !strings.Contains(err.Error(), "different servers") {
		t.Errorf("other server: %v", err)
	}
	a, b = snap(), snap()
	a.Server.StartedAt = time.Unix(1000, 0)
	b.Server.StartedAt = time.Unix(2000, 0)
	if _, err := Diff(a, b); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("restart: %v", err)
	}
	a, b = snap(), snap()
	b.Server.Dialect = "mysql"
	if _, err := Diff(a, b); err == nil {
		t.Error("other dialect must be refused")
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	sc := Scope{Schemas: []string{"App"}, Tables: []string{"orders", "app.items"}}
	for _, tc := range []struct {
		schema, table string
		want          bool
	}{{"app", "orders", true}, {"app", "ITEMS", true}, {"app", "other", false}, {"public", "orders", false}} {
		if got := sc.InScope(tc.schema, tc.table); got != tc.want {
			t.Errorf("InScope(%s, %s) = %v", tc.schema, tc.table, got)
		}
	}
	if !(Scope{}).InScope("any", "thing") {
		t.Error("an empty scope is everything")
	}
}

func TestPrivilegeErrorBecomesMissingWithFix(t *testing.T) {
	t.Parallel()
	m := missingFrom("pg_walinspect", &dialects.PrivilegeError{Privilege: "EXECUTE", Grant: "GRANT pg_read_server_files TO app"})
	if m.Fix != "GRANT pg_read_server_files TO app" || !strings.Contains(m.Reason, "EXECUTE") {
		t.Errorf("%+v", m)
	}
}

// A reset inside the window is a reset even when the counter has since grown
// past its "before" value (pg_stat_reset() then more inserts); statistics that
// first came to exist in the window (a fresh cluster's database entry) are not.
func TestDiffResetTimeChangeIsAResetUnlessTheStatsAreNew(t *testing.T) {
	t.Parallel()
	withReset := func(cn Counter, r string) Counter { cn.Reset = r; return cn }
	d, _ := Diff(snap(withReset(c(Table, "s.t", "rows_inserted", 5, "1"), "")),
		snap(withReset(c(Table, "s.t", "rows_inserted", 10, "1"), "2026-12-01 00:00:01+00")))
	if m := d.Get(Key{Table, "s.t", "rows_inserted"}); m.OK() || !strings.Contains(m.Note, "reset") {
		t.Errorf("grown again after a reset must still be a reset: %+v", m)
	}
	d, _ = Diff(snap(withReset(c(DB, "", "transactions_committed", 0, ""), "")),
		snap(withReset(c(DB, "", "transactions_committed", 7, ""), "2026-12-01 00:00:01+00")))
	if m := d.Get(Key{DB, "", "transactions_committed"}); !m.OK() || m.V() != 7 || len(d.Resets) != 0 {
		t.Errorf("statistics created in the window count from zero: %+v %v", m, d.Resets)
	}
	d, _ = Diff(snap(withReset(c(DB, "", "transactions_committed", 3, ""), "T1")),
		snap(withReset(c(DB, "", "transactions_committed", 9, ""), "T1")))
	if m := d.Get(Key{DB, "", "transactions_committed"}); !m.OK() || m.V() != 6 {
		t.Errorf("same reset time: a plain difference, got %+v", m)
	}
}

type nothing struct{}

func (nothing) Name() string                   { return "nothing" }
func (nothing) Supports(dialects.Server) error { return nil }

type catalog struct{ nothing }

func (catalog) Catalog(context.Context, dialects.Querier, dialects.Server, Scope) ([]Object, []Counter, error) {
	return nil, nil, nil
}

// A source that is none of Catalog, Collector and Marker would be skipped
// by Take without a word, and two catalogs would list every object twice:
// Register refuses both.
func TestSetCheckRefusesSourcesThatReadNothingAndTwoCatalogs(t *testing.T) {
	t.Parallel()
	if err := (&Set{Sources: []Source{catalog{}}}).Check(); err != nil {
		t.Errorf("one catalog: %v", err)
	}
	if err := (&Set{Sources: []Source{catalog{}, nothing{}}}).Check(); err == nil || !strings.Contains(err.Error(), "nothing reads nothing") {
		t.Errorf("a source with no role: %v", err)
	}
	if err := (&Set{Sources: []Source{catalog{}, catalog{}}}).Check(); err == nil || !strings.Contains(err.Error(), "2 catalogs") {
		t.Errorf("two catalogs: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Register accepted a set that fails Check")
		}
	}()
	Register("test-nothing", &Set{Sources: []Source{nothing{}}})
}
