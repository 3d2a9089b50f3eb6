package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// A 3-node Galera cluster the test starts: `measure --dsn node1 --node
// node2 --node node3` of a script that writes through node 1 reports, per
// node, the write-sets and their bytes as the test reads the same counters
// itself around the same script run again: node 1 replicated one write-set
// per autocommit statement, nodes 2 and 3 received each of them, and the
// bytes are the ones the test's own reads give.
func TestGaleraWritesetsPerNode(t *testing.T) {
	t.Parallel()
	start := time.Now()
	client := testenv.Tool(t, "mariadb", "mysql")
	dsns := mysqltest.PrivateGalera(t)
	t.Logf("3-node Galera up in %s", time.Since(start).Round(time.Millisecond))
	dbs := make([]*sql.DB, len(dsns))
	for i, d := range dsns {
		dbs[i], _ = mysqltest.OpenDSN(t, d)
	}
	mysqltest.Exec(t, dbs[0], "CREATE DATABASE gc", "CREATE TABLE gc.t (id int PRIMARY KEY, v int, KEY (v)) ENGINE=InnoDB")
	for i := 1; i <= 100; i++ {
		mysqltest.Exec(t, dbs[0], fmt.Sprintf("INSERT INTO gc.t VALUES (%d, 0)", i))
	}
	u, _ := url.Parse(dsns[0])
	// 60 autocommit transactions, each the same size whatever v was: 50
	// updates of one row and 10 of ten rows.
	var script strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&script, "UPDATE t SET v = 1 - v WHERE id = %d;", i)
	}
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&script, "UPDATE t SET v = 1 - v WHERE id > %d AND id <= %d;", 50+4*i, 50+4*i+10)
	}
	const writesets = 60
	cmd := []string{client, "-h", "127.0.0.1", "-P", u.Port(), "-u", "root", "gc", "-e", script.String()}

	out := filepath.Join(t.TempDir(), "galera.json")
	if _, stderr, err := run(t, "measure", "-q", "--dsn", dsns[0], "--node", dsns[1], "--node", dsns[2], "--schema", "gc",
		"--format", "json", "--output", out, "--", cmd[0], cmd[1], cmd[2], cmd[3], cmd[4], cmd[5], cmd[6], cmd[7], cmd[8], cmd[9]); err != nil {
		t.Fatalf("measure: %v\n%s", err, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if text, stderr, err := run(t, "compare", out); err != nil || !strings.Contains(text, "write-sets replicated (galera)") ||
		!strings.Contains(text, "largest costs per row changed, and its 2 copies'") || !strings.Contains(text, "node1 (a copy of mariadb in the same window): ") {
		t.Errorf("compare of the Galera result: %v\n%s\n%s", err, stderr, text)
	} else {
		t.Logf("compare:\n%s", text)
	}
	if len(r.Runs) != 3 {
		t.Fatalf("want the run of node 1 and of the two --node, got %d runs", len(r.Runs))
	}

	// The truth of what node 1 replicated: the same script again, node 1's
	// counters read by the test before and after. Every write-set is the
	// same size whatever v was, so the bytes must agree to the byte.
	names := []string{"wsrep_replicated", "wsrep_replicated_bytes"}
	awaitApplied(t, dbs, 1)
	awaitApplied(t, dbs, 2)
	before := wsrep(t, dbs[0], names)
	if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("the script: %v\n%s", err, b)
	}
	after := wsrep(t, dbs[0], names)
	sent, sentBytes := after["wsrep_replicated"]-before["wsrep_replicated"], after["wsrep_replicated_bytes"]-before["wsrep_replicated_bytes"]
	if sent != writesets || sentBytes <= 0 {
		t.Fatalf("the test's own reads: node 1 replicated %v write-sets (%v bytes) for %d statements", sent, sentBytes, writesets)
	}
	for i, run := range r.Runs {
		db := run.Database
		if m := db["writesets_replicated"]; i == 0 && (m.V() != sent || m.Exactness != result.Exact) || i > 0 && m.V() != 0 {
			t.Errorf("node %d: writesets_replicated %v (%s), node 1 replicated %v", i+1, m.V(), m.Exactness, sent)
		}
		if m := db["writeset_bytes_replicated"]; i == 0 && m.V() != sentBytes || i > 0 && m.V() != 0 {
			t.Errorf("node %d: writeset_bytes_replicated %v, the test's reads give %v", i+1, m.V(), sentBytes)
		}
		// What a node received: node 1's write-sets (on the other nodes)
		// plus the cluster's commit-cut messages, 8 bytes each: every byte
		// beyond the write-sets is accounted for by them.
		ws, wsBytes := sent, sentBytes
		if i == 0 {
			ws, wsBytes = 0, 0
		}
		got, gotBytes := db["galera_actions_received"], db["galera_action_bytes_received"]
		if !got.OK() || !gotBytes.OK() || got.Exactness != result.Exact {
			t.Fatalf("node %d: actions received %+v, bytes %+v", i+1, got, gotBytes)
		}
		if cuts := got.V() - ws; cuts < 0 || cuts > writesets || gotBytes.V()-wsBytes != 8*cuts {
			t.Errorf("node %d received %v actions of %v bytes: %v write-sets of %v bytes and %v commit cuts do not add up",
				i+1, got.V(), gotBytes.V(), ws, wsBytes, cuts)
		} else {
			t.Logf("node %d: received %v write-sets (%v B) and %v commit-cut messages", i+1, ws, wsBytes, cuts)
		}
		if m := db["galera_cluster_size"]; m.V() != 3 {
			t.Errorf("node %d: cluster size %v (%s)", i+1, m.V(), m.Source)
		}
		if m := db["cert_failures"]; !m.OK() || m.V() != 0 {
			t.Errorf("node %d: cert_failures %+v on a one-writer script", i+1, m)
		}
	}
}

// awaitApplied waits until node i has committed everything node 1 has:
// their wsrep_last_committed agree, 30 s at most.
func awaitApplied(t *testing.T, dbs []*sql.DB, i int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := wsrep(t, dbs[0], []string{"wsrep_last_committed"})["wsrep_last_committed"]
		b := wsrep(t, dbs[i], []string{"wsrep_last_committed"})["wsrep_last_committed"]
		if a == b {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d committed up to %v, node 1 to %v, after 30 s", i+1, b, a)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wsrep(t *testing.T, db *sql.DB, names []string) map[string]float64 {
	t.Helper()
	rows, err := my.ReadShow(context.Background(), db, "SHOW GLOBAL STATUS LIKE 'wsrep%'")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range rows {
		k := r.Get("Variable_name")
		for _, n := range names {
			if k == n {
				v, err := strconv.ParseFloat(r.Get("Value"), 64)
				if err != nil {
					t.Fatalf("%s = %q", k, r.Get("Value"))
				}
				out[n] = v
			}
		}
	}
	return out
}
