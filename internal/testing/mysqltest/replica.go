package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// PrivateReplica starts a throwaway primary (binary log on, server_id 1)
// and a replica of it (server_id 2) replicating through the binary log with
// GTID (CHANGE MASTER ... MASTER_USE_GTID = slave_pos; START SLAVE), both
// from one bootstrap: the replica's data directory is a copy of the fresh
// one, taken before either starts. Extra options go to each server. It
// returns once the replica's threads run; both are gone at the end of the
// test.
func PrivateReplica(t testing.TB, primaryOpts, replicaOpts []string) (primary, replica string) {
	t.Helper()
	testenv.Heavy(t, "starts a MariaDB primary and replica of its own")
	b := bootstrap(t)
	rdata := filepath.Join(b.dir, "replica")
	if out, err := exec.Command("cp", "-a", b.data, rdata).CombinedOutput(); err != nil {
		t.Fatalf("copy the data directory for the replica: %v\n%s", err, out)
	}
	waitP := b.spawn(t, b.data, append([]string{"--log-bin=binlog", "--server-id=1", "--binlog-format=ROW"}, primaryOpts...)...)
	waitR := b.spawn(t, rdata, append([]string{"--server-id=2", "--relay-log=relay"}, replicaOpts...)...)
	primary, replica = waitP(t), waitR(t)
	u, err := url.Parse(primary)
	if err != nil {
		t.Fatal(err)
	}
	rdb := rawOpen(t, replica)
	defer rdb.Close()
	for _, stmt := range []string{
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = %s, MASTER_USER = 'root', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1", u.Port()),
		"START SLAVE",
	} {
		if _, err := rdb.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		rows, err := my.ReadShow(ctx, rdb, "SHOW ALL SLAVES STATUS")
		if err == nil && len(rows) == 1 && rows[0].Get(my.ColIORunning...) == "Yes" && rows[0].Get(my.ColSQLRunning...) == "Yes" {
			return primary, replica
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the replica's threads did not start within 30 s: %v %v", rows, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func rawOpen(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	cfg, err := my.Config(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	return db
}
