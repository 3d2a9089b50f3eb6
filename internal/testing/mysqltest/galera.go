package mysqltest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// GaleraProvider is where Debian's galera-4 puts the wsrep provider.
const GaleraProvider = "/usr/lib/galera/libgalera_smm.so"

// PrivateGalera starts a throwaway MariaDB Galera cluster of three nodes on
// loopback ports (node 1 bootstraps it, nodes 2 and 3 join it by an rsync
// state transfer) and returns the nodes' DSNs once all three are Synced in
// a cluster of three. Each node is gone at the end of the test. It needs
// galera-4 and rsync (make test installs them); without them the test is
// skipped, except under CI=true, where that is a failure.
func PrivateGalera(t testing.TB, opts ...string) []string {
	t.Helper()
	testenv.Heavy(t, "starts a 3-node MariaDB Galera cluster of its own")
	_, errP := os.Stat(GaleraProvider)
	_, errR := exec.LookPath("rsync")
	if errP != nil || errR != nil {
		if testenv.CI() {
			t.Fatalf("galera-4 or rsync missing under CI=true (%v; %v): scripts/services.sh installs them", errP, errR)
		}
		t.Skipf("galera-4 or rsync missing (%v; %v)", errP, errR)
	}
	b := bootstrap(t)
	const n = 3
	type node struct{ group, ist, sst int }
	nodes := make([]node, n)
	var peers []string
	for i := range nodes {
		nodes[i] = node{freePort(t), freePort(t), freePort(t)}
		peers = append(peers, fmt.Sprintf("127.0.0.1:%d", nodes[i].group))
	}
	// A joiner's files are replaced by the state transfer, but it needs a
	// data directory to start in: a copy taken before node 1 starts, which
	// holds none of node 1's cluster state (its UUID in gvwstate.dat would
	// make the joiner a duplicate of node 1).
	datas := []string{b.data}
	for i := 1; i < n; i++ {
		d := filepath.Join(b.dir, fmt.Sprintf("node%d", i+1))
		if out, err := exec.Command("cp", "-a", b.data, d).CombinedOutput(); err != nil {
			t.Fatalf("copy the data directory for node %d: %v\n%s", i+1, err, out)
		}
		datas = append(datas, d)
	}
	dsns := make([]string, n)
	for i, nd := range nodes {
		data := datas[i]
		o := []string{"--wsrep-on=ON", "--wsrep-provider=" + GaleraProvider, "--wsrep-cluster-name=writeamp-test",
			"--wsrep-cluster-address=gcomm://" + strings.Join(peers, ","),
			fmt.Sprintf("--wsrep-node-name=node%d", i+1), fmt.Sprintf("--wsrep-node-address=127.0.0.1:%d", nd.group),
			fmt.Sprintf("--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:%d;ist.recv_addr=127.0.0.1:%d;gcache.size=32M", nd.group, nd.ist),
			"--wsrep-sst-method=rsync", fmt.Sprintf("--wsrep-sst-receive-address=127.0.0.1:%d", nd.sst),
			"--binlog-format=ROW", "--innodb-autoinc-lock-mode=2", "--default-storage-engine=InnoDB"}
		if i == 0 {
			o = append(o, "--wsrep-new-cluster")
		}
		// One at a time: a joiner needs a donor that is Synced.
		dsns[i] = b.start(t, data, append(o, opts...)...)
		awaitSynced(t, dsns[i], i+1)
	}
	for i, dsn := range dsns {
		awaitClusterSize(t, dsn, i+1, n)
	}
	return dsns
}

// awaitSynced waits until the node says Synced (a joiner's state transfer
// is over), 120 s at most.
func awaitSynced(t testing.TB, dsn string, i int) {
	t.Helper()
	awaitStatus(t, dsn, fmt.Sprintf("node %d Synced", i), func(st map[string]string) bool {
		return st["wsrep_local_state_comment"] == "Synced" && st["wsrep_ready"] == "ON"
	})
}

func awaitClusterSize(t testing.TB, dsn string, i, n int) {
	t.Helper()
	awaitStatus(t, dsn, fmt.Sprintf("node %d in a cluster of %d", i, n), func(st map[string]string) bool {
		return st["wsrep_cluster_size"] == fmt.Sprint(n) && st["wsrep_cluster_status"] == "Primary"
	})
}

func awaitStatus(t testing.TB, dsn, what string, ok func(map[string]string) bool) {
	t.Helper()
	db := rawOpen(t, dsn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var st map[string]string
	for {
		st = map[string]string{}
		rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'wsrep%'")
		if err == nil {
			for rows.Next() {
				var k, v string
				if rows.Scan(&k, &v) == nil {
					st[k] = v
				}
			}
			rows.Close()
		}
		if ok(st) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within 120 s (state %q, cluster size %q, status %q; %v)", what,
				st["wsrep_local_state_comment"], st["wsrep_cluster_size"], st["wsrep_cluster_status"], err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
