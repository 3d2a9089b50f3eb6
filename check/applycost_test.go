package check

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/result"
)

// migrationRun is an apply step's window as applyMeasured builds it: a
// backfill that updated 500 rows and inserted 20, waited on a lock, and
// shipped its log to a standby.
func migrationRun() *result.Run {
	m := func(v float64, e result.Exactness) result.Metric { return result.New(v, e, "test") }
	return &result.Run{Label: "migration",
		Database: map[string]result.Metric{
			"seconds": m(1.5, result.Exact), "log_bytes": m(2e6, result.Exact), "log_records": m(900, result.Exact),
			"replicas_log_bytes_sent": m(2e6, result.Exact), "waits.lck_m_x": m(3, result.Exact), "waits.lck_m_x_ms": m(420, result.Exact),
			"wait_share.Lock.relation": m(0.25, result.Approx), "wait_share.CPU.running": m(0.75, result.Approx),
		},
		Tables: []result.Object{
			{Name: "a", Metrics: map[string]result.Metric{"rows_updated": m(500, result.Exact), "rows_inserted": m(0, result.Exact)}},
			{Name: "b", Metrics: map[string]result.Metric{"rows_inserted": m(20, result.Derived)}},
		}}
}

func TestMigrationNoteSaysRowsLocksAndShipping(t *testing.T) {
	note := migrationNote(migrationRun())
	for _, want := range []string{"applying it took 1.500 s", "520 rows written (inserted + updated + deleted, derived",
		"3 lock waits", "420 ms waiting on locks", "25% of sampled active time waiting on a lock (approx)", "log bytes shipped to standbys (exact)"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "CPU") {
		t.Errorf("a CPU share is no lock wait:\n%s", note)
	}
	bare := &result.Run{Database: map[string]result.Metric{"seconds": result.New(0.1, result.Exact, "test")}}
	if note := migrationNote(bare); !strings.Contains(note, "lock waits not measured") || strings.Contains(note, "rows written") || strings.Contains(note, "standbys") {
		t.Errorf("a window without samplers, tables or standbys: %s", note)
	}
	// MySQL's latches carry "lock" in their names and count every
	// acquisition: none is a lock wait; its row, table and metadata locks are.
	ex := func(v float64) result.Metric { return result.New(v, result.Exact, "test") }
	my := &result.Run{Database: map[string]result.Metric{
		"waits.wait/synch/rwlock/innodb/index_tree_rw_lock": ex(90000), "waits.wait/synch/rwlock/innodb/index_tree_rw_lock_ms": ex(800),
		"waits.wait/synch/mutex/innodb/lock_mutex": ex(40000), "waits.wait/synch/sxlock/innodb/hash_table_locks": ex(7000),
		"waits.row_lock": ex(2), "waits.row_lock_ms": ex(51), "waits.wait/lock/metadata/sql/mdl": ex(5), "waits.wait/lock/metadata/sql/mdl_ms": ex(9),
		"waits.enq_tx_index_contention": ex(4), "waits.enq_tx_row_lock_contention": ex(1)}}
	if note := migrationNote(my); !strings.Contains(note, "8 lock waits, 60 ms waiting on locks") {
		t.Errorf("latches counted as lock waits, or locks missed: %s", note)
	}
	sampled := &result.Run{Database: map[string]result.Metric{"wait_samples": result.New(12, result.Approx, "test")}}
	if note := migrationNote(sampled); !strings.Contains(note, "no lock wait in 12 wait samples") {
		t.Errorf("sampled, no lock: %s", note)
	}
}

func TestMigrationBudgetHoldsTheApplyStep(t *testing.T) {
	for _, c := range []struct {
		budget string
		mig    *result.Run
		want   budget.Status
	}{
		{"migration.log_bytes<=1KiB", migrationRun(), budget.Fail},
		{"migration.log_bytes<=500MB", migrationRun(), budget.Pass},
		{"migration.log_bytes<=1KiB", nil, budget.Unknown},
	} {
		b, err := budget.Parse(c.budget)
		if err != nil {
			t.Fatal(err)
		}
		vs, ok := migrationVerdicts(b, c.mig)
		if !ok || len(vs) != 1 || vs[0].Status != c.want {
			t.Errorf("%s on %v: %+v, want %s", c.budget, c.mig != nil, vs, c.want)
		}
	}
}
