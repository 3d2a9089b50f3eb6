package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// TestMariaDBReplica measures a MariaDB primary and a replica of it (binlog
// with GTID, semi-synchronous), both started by the test, each figure held
// to what the test reads itself: the primary's binary log position around
// the workload (what the replica received and applied, what the primary
// shipped), the transactions and rows the workload's statements wrote, and
// the replica untouched by writeamp's ledger on the primary.
func TestMariaDBReplica(t *testing.T) {
	t.Parallel()
	start := time.Now()
	client := testenv.Tool(t, "mariadb", "mysql")
	pdsn, rdsn := mysqltest.PrivateReplica(t, []string{"--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=10000"},
		[]string{"--rpl-semi-sync-slave-enabled=ON"})
	t.Logf("primary and replica up in %s", time.Since(start).Round(time.Millisecond))
	pdb, ps := mysqltest.OpenDSN(t, pdsn)
	rdb, rs := mysqltest.OpenDSN(t, rdsn)
	if !rs.Has(my.CapReplica) || ps.Has(my.CapReplica) {
		t.Fatalf("replica probed as replica=%v (%s), primary as replica=%v", rs.Has(my.CapReplica), rs.Why(my.CapReplica), ps.Has(my.CapReplica))
	}
	mysqltest.Exec(t, pdb, "CREATE DATABASE rp", "CREATE TABLE rp.t (id int PRIMARY KEY, v int, KEY (v)) ENGINE=InnoDB")
	u, _ := url.Parse(pdsn)
	// 202 autocommit transactions: 200 rows inserted, 50 updated, 10
	// deleted, on ids of their own after base.
	workload := func(base int) []string {
		var script strings.Builder
		for i := base + 1; i <= base+200; i++ {
			fmt.Fprintf(&script, "INSERT INTO t VALUES (%d, 0);", i)
		}
		fmt.Fprintf(&script, "UPDATE t SET v = 1 WHERE id > %d AND id <= %d; DELETE FROM t WHERE id > %d AND id <= %d;", base, base+50, base+190, base+200)
		return []string{client, "-h", "127.0.0.1", "-P", u.Port(), "-u", "root", "rp", "-e", script.String()}
	}
	awaitReplica(t, pdb, rdb)

	t.Run("replica applies", func(t *testing.T) {
		p0 := masterPos(t, pdb)
		win := window(t, rdb, rs)
		win.Observers = append(win.Observers, &measure.Waits{})
		res, code, err := (&measure.Wrapped{Window: win, Scope: collectors.Scope{Schemas: []string{"rp"}}, Command: workload(0), Stdout: io.Discard}).Run(context.Background())
		if err != nil || code != 0 {
			t.Fatalf("measure: exit %d, %v", code, err)
		}
		run := &res.Runs[0]
		truth := masterPos(t, pdb) - p0
		for _, name := range []string{"relay_log_bytes_received", "applied_log_bytes"} {
			if m := run.Database[name]; !m.OK() || m.V() != truth || m.Exactness != result.Exact {
				t.Errorf("%s %v (%s, %s), want the primary's binlog position difference %v, exact", name, m.Value, m.Exactness, m.Note, truth)
			}
		}
		for name, want := range map[string]float64{"applied_transactions": 202, "rows_inserted": 200, "rows_updated": 50, "rows_deleted": 10} {
			if m := run.Database[name]; !m.OK() || m.V() != want {
				t.Errorf("%s %v (%s, %s), want %v", name, m.Value, m.Exactness, m.Source, want)
			}
		}
		if m := run.Database["log_bytes"]; !m.OK() || m.V() <= 0 {
			t.Errorf("the replica's own redo log_bytes %v: applying 202 transactions writes redo", m.Value)
		}
		if m := run.Database["replica_lag_ms_max"]; !m.OK() || m.Exactness != result.Approx {
			t.Errorf("replica_lag_ms_max %+v, want a sampled figure", m)
		}
		for _, w := range run.Warnings {
			if strings.Contains(w, "caught up") {
				t.Errorf("warning: %s", w)
			}
		}
	})

	t.Run("primary ships, ledger stays off the binlog", func(t *testing.T) {
		awaitReplica(t, pdb, rdb)
		p0 := masterPos(t, pdb)
		res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Scope: collectors.Scope{Schemas: []string{"rp"}}, Command: workload(1000), Stdout: io.Discard}).Run(context.Background())
		if err != nil || code != 0 {
			t.Fatalf("measure: exit %d, %v", code, err)
		}
		truth := masterPos(t, pdb) - p0
		run := &res.Runs[0]
		if m := run.Database["binlog_bytes"]; !m.OK() || m.V() != truth {
			t.Errorf("binlog_bytes %v, want the position difference %v", m.Value, truth)
		}
		var sent []string
		for k, m := range run.Database {
			if strings.HasPrefix(k, result.ReplicaPrefix) && strings.HasSuffix(k, ".log_bytes_sent") {
				sent = append(sent, k)
				if !m.OK() || m.V() != truth || m.Exactness != result.Derived {
					t.Errorf("%s %v (%s), want the window's binlog %v, derived", k, m.Value, m.Exactness, truth)
				}
			}
		}
		if len(sent) != 1 {
			t.Errorf("per-replica figures %v, want one replica", sent)
		}
		if m := run.Database["replicas"]; !m.OK() || m.V() != 1 {
			t.Errorf("replicas %v, want 1", m.Value)
		}
		if m := run.Database["semisync_acked_commits"]; !m.OK() || m.V() != 202 {
			t.Errorf("semisync_acked_commits %v, want the workload's 202 transactions", m.Value)
		}
		if m := run.Database["semisync_wait_ms"]; !m.OK() || m.V() <= 0 {
			t.Errorf("semisync_wait_ms %v, want the commits' waits", m.Value)
		}
		found := false
		for _, f := range findingsOf(run) {
			found = found || strings.Contains(f.Text, "semi-synchronous replica")
		}
		if !found {
			t.Errorf("no semi-sync finding: %v", findingsOf(run))
		}
		// The window turned the InnoDB monitors on and recorded them in
		// writeamp_ledger, then dropped it: none of it reached the binlog.
		ledger := false
		for _, n := range res.Notes {
			ledger = ledger || strings.Contains(n, "recorded in writeamp_ledger")
		}
		if !ledger {
			t.Fatalf("the window wrote no ledger (notes %q): the test proves nothing about it", res.Notes)
		}
		var events int
		rows, err := pdb.Query("SHOW BINLOG EVENTS IN 'binlog.000001'")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			if strings.Contains(string(vals[len(vals)-1]), "writeamp_ledger") {
				t.Errorf("binlog event: %s", vals[len(vals)-1])
			}
			events++
		}
		rows.Close()
		awaitReplica(t, pdb, rdb)
		var n int
		rdb.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'writeamp_ledger'").Scan(&n)
		st, err := my.ReadShow(context.Background(), rdb, "SHOW ALL SLAVES STATUS")
		if err != nil || len(st) != 1 || n != 0 || st[0]["Slave_SQL_Running"] != "Yes" || st[0]["Last_SQL_Errno"] != "0" {
			t.Errorf("replica after the window: writeamp_ledger databases %d, status %v (%v)", n, st, err)
		}
		t.Logf("%d binlog events, none of writeamp_ledger", events)
	})

	t.Run("one window, two nodes", func(t *testing.T) {
		awaitReplica(t, pdb, rdb)
		p0 := masterPos(t, pdb)
		node := &measure.Node{Label: "node1", Window: window(t, rdb, rs), Scope: collectors.Scope{Schemas: []string{"rp"}}}
		res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Nodes: []*measure.Node{node}, Scope: collectors.Scope{Schemas: []string{"rp"}},
			Command: workload(2000), Stdout: io.Discard}).Run(context.Background())
		if err != nil || code != 0 {
			t.Fatalf("measure: exit %d, %v", code, err)
		}
		truth := masterPos(t, pdb) - p0
		if len(res.Runs) != 2 || res.Runs[1].Variant != "node1" {
			t.Fatalf("%d runs, want the primary's and node1's", len(res.Runs))
		}
		if m := res.Runs[1].Database["relay_log_bytes_received"]; !m.OK() || m.V() != truth {
			t.Errorf("node1 relay_log_bytes_received %v (%s), want the primary's binlog %v", m.Value, m.Note, truth)
		}
		if m := res.Runs[1].Database["rows_inserted"]; !m.OK() || m.V() != 200 {
			t.Errorf("node1 rows_inserted %v (%s), want 200", m.Value, m.Source)
		}
	})
	t.Run("run with the replica as a node", func(t *testing.T) {
		awaitReplica(t, pdb, rdb)
		p := refreshtoken.DefaultParams()
		p.Logins, p.RefreshesPerLogin = 60, 5
		node := &measure.Node{Label: "node1", Window: window(t, rdb, rs)}
		res, err := (&measure.Experiment{Window: window(t, pdb, ps), Workload: refreshtoken.New(p), Variants: []string{"baseline"}, Nodes: []*measure.Node{node}}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != 2 || res.Runs[1].Variant != "baseline@node1" {
			t.Fatalf("runs %d, want baseline and baseline@node1", len(res.Runs))
		}
		pr, nr := res.Runs[0], res.Runs[1]
		if b, r := pr.Database["binlog_bytes"], nr.Database["relay_log_bytes_received"]; !b.OK() || !r.OK() || b.V() != r.V() || b.V() == 0 {
			t.Errorf("the primary wrote %v of binlog, the node received %v (%s)", b.Value, r.Value, r.Note)
		}
		for _, name := range []string{"rows_updated", "rows_deleted"} {
			if b, r := pr.Database[name], nr.Database[name]; !b.OK() || !r.OK() || b.V() != r.V() {
				t.Errorf("%s: primary %v, node %v (%s)", name, b.Value, r.Value, r.Source)
			}
		}
		if m := nr.Database["applied_transactions"]; !m.OK() || m.V() == 0 {
			t.Errorf("node applied_transactions %v", m.Value)
		}
	})
	t.Logf("whole test %s", time.Since(start).Round(time.Millisecond))
}

// masterPos is the primary's binary log position (one file: the test's
// windows are far from max_binlog_size).
func masterPos(t *testing.T, db *sql.DB) float64 {
	t.Helper()
	rows, err := my.ReadShow(context.Background(), db, "SHOW MASTER STATUS")
	if err != nil || len(rows) != 1 {
		t.Fatalf("SHOW MASTER STATUS: %v %v", rows, err)
	}
	var pos float64
	fmt.Sscan(rows[0]["Position"], &pos)
	return pos
}

// awaitReplica waits until the replica has applied all the primary wrote.
func awaitReplica(t *testing.T, pdb, rdb *sql.DB) {
	t.Helper()
	want := masterPos(t, pdb)
	for i := 0; ; i++ {
		rows, err := my.ReadShow(context.Background(), rdb, "SHOW ALL SLAVES STATUS")
		if err == nil && len(rows) == 1 && rows[0].Get(my.ColExecPos...) == fmt.Sprint(want) {
			return
		}
		if i == 300 {
			t.Fatalf("the replica did not apply up to %v in 30 s: %v %v", want, rows, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
