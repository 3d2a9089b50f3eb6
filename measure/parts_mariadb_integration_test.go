package measure_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// InnoDB keeps a partitioned table's statistics per partition (t#P#p0):
// under measure the table and each of its indexes are listed once, under
// the table's name, and an index's leaf pages are the sum of its
// partitions' (mysql.innodb_index_stats read here). On 10.11 with
// performance_schema and userstat off it has no per-table row counters.
func TestMariaDBFoldsPartitions(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".ev (id int PRIMARY KEY, k int, v int, pad char(200), KEY k_idx (k)) ENGINE=InnoDB PARTITION BY HASH(id) PARTITIONS 2",
		"INSERT INTO "+name+".ev SELECT seq, seq, 0, 'x' FROM seq_1_to_2000", "ANALYZE TABLE "+name+".ev")
	leaf := func() map[string]float64 {
		rows, err := db.Query(`SELECT table_name, index_name, stat_value FROM mysql.innodb_index_stats
			WHERE database_name = ? AND stat_name = 'n_leaf_pages'`, name)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]float64{}
		parts := map[string]bool{}
		for rows.Next() {
			var tbl, ix string
			var v float64
			if err := rows.Scan(&tbl, &ix, &v); err != nil {
				t.Fatal(err)
			}
			parts[tbl] = true
			out[ix] += v
		}
		if len(parts) != 2 {
			t.Fatalf("setup: statistics of %d partitions, want 2 (%v)", len(parts), parts)
		}
		return out
	}
	before := leaf()
	time.Sleep(1100 * time.Millisecond) // last_update has whole seconds: the window's ANALYZE must show
	ctx := context.Background()
	w := window(t, db, s)
	sp, err := w.Begin(ctx, collectors.Scope{Schemas: []string{name}})
	if err != nil {
		t.Fatal(err)
	}
	mysqltest.Exec(t, db, "INSERT INTO "+name+".ev SELECT seq, seq, 0, 'y' FROM seq_2001_to_22000",
		"UPDATE "+name+".ev SET k = k + 1 WHERE id <= 200", "ANALYZE TABLE "+name+".ev")
	d, err := sp.End(ctx, measure.Quiet(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	after := leaf()
	run := measure.BuildRun("mariadb", d, workloads.Stats{}, "")
	for _, o := range append(append([]result.Object{}, run.Tables...), run.Indexes...) {
		if strings.Contains(strings.ToUpper(o.Name+" "+o.Table), "#P#") {
			t.Errorf("a partition listed as an object of its own: %s (table %s)", o.Name, o.Table)
		}
	}
	if len(run.Tables) != 1 || run.Tables[0].Name != "ev" {
		t.Errorf("tables %+v, want ev once", run.Tables)
	}
	for _, ix := range []struct{ name, stat string }{{"ev.PRIMARY", "PRIMARY"}, {"k_idx", "k_idx"}} {
		o := run.Index(ix.name)
		if o == nil || o.Table != "ev" {
			t.Fatalf("index %s of ev not listed: %+v", ix.name, run.Indexes)
		}
		lp := metric(t, o, result.LeafPages.Name)
		want := after[ix.stat] - before[ix.stat]
		t.Logf("%s leaf pages: writeamp %v (%s), innodb_index_stats over both partitions %v -> %v", ix.name, lp.V(), lp.Exactness, before[ix.stat], after[ix.stat])
		// The clustered index grows with the rows; InnoDB may leave a
		// secondary index's statistics as they were (then unavailable).
		if (ix.stat == "PRIMARY" && (want <= 0 || !lp.OK())) || (lp.OK() && lp.V() != want) {
			t.Errorf("%s leaf_pages %+v, the partitions' sum grew by %v", ix.name, lp, want)
		}
		if !strings.Contains(lp.Source, "2 partitions") {
			t.Errorf("%s leaf_pages source %q does not say it sums the partitions", ix.name, lp.Source)
		}
		if pt := o.Metrics[result.PagesTouched.Name]; !pt.OK() || pt.V() <= 0 {
			t.Errorf("%s pages_touched %+v", ix.name, pt)
		}
	}
}
