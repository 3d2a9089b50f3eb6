package measure_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// pgbenchDB creates a throwaway database initialized by pgbench -i -s 1 and
// drops it when the test ends. pgbench ships with PostgreSQL's client, so
// under CI its absence is a failure, not a skip.
func pgbenchDB(t *testing.T) (dsn string, db *sql.DB) {
	t.Helper()
	adminDSN := testenv.DSN(t, pgEnv)
	if _, err := exec.LookPath("pgbench"); err != nil {
		if testenv.CI() {
			t.Fatalf("pgbench not installed under CI=true: %v", err)
		}
		t.Skipf("pgbench not installed: %v", err)
	}
	admin, _ := openPG(t, adminDSN)
	name := fmt.Sprintf("writeamp_test_pgbench_%d", os.Getpid())
	if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
		t.Fatal(err)
	}
	// TEMPLATE template0: CREATE DATABASE from a template others are
	// connected to fails, and other tests' sessions come and go.
	if _, err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(adminDSN)
	if err != nil {
		t.Fatalf("%s must be a URL for this test: %v", pgEnv, err)
	}
	u.Path = "/" + name
	dsn = u.String()
	db, _ = openPG(t, dsn)
	t.Cleanup(func() {
		db.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	if out, err := exec.Command("pgbench", "-q", "-i", "-s", "1", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	return dsn, db
}

// statTable reads a pg_stat_user_tables column directly, after publishing
// this session's own counts, as an independent check of writeamp's numbers.
func statTable(t *testing.T, db *sql.DB, table, column string) int64 {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var v int64
	q := fmt.Sprintf("SELECT %s FROM pg_stat_user_tables WHERE relname = $1", column)
	if err := conn.QueryRowContext(context.Background(), q, table).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func value(t *testing.T, o *result.Object, name string) float64 {
	t.Helper()
	m := metric(t, o, name)
	if !m.OK() {
		t.Fatalf("%s.%s unavailable: %s", o.Name, name, m.Note)
	}
	return m.V()
}

func TestMeasurePgbenchCountsWhatPgbenchRan(t *testing.T) {
	t.Parallel()
	dsn, db := pgbenchDB(t)
	_, server := openPG(t, dsn)
	hot0 := statTable(t, db, "pgbench_accounts", "n_tup_hot_upd")
	upd0 := statTable(t, db, "pgbench_accounts", "n_tup_upd")

	var out bytes.Buffer
	w := &measure.Wrapped{Window: window(t, db, server), Label: "tpcb",
		Command: []string{"pgbench", "-n", "-t", "500", "-c", "2", dsn},
		Stdout:  &out, Stderr: &out}
	res, code, err := w.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("pgbench exited %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "number of transactions actually processed: 1000/1000") {
		t.Errorf("pgbench's output did not pass through:\n%s", out.String())
	}
	run := res.Runs[0]
	if run.Variant != "tpcb" || run.ExitCode == nil || *run.ExitCode != 0 {
		t.Errorf("variant %q exit %v", run.Variant, run.ExitCode)
	}
	if strings.Join(run.Command, " ") != "pgbench -n -t 500 -c 2 "+dsn {
		t.Errorf("command %q", run.Command)
	}
	acc := run.Table("pgbench_accounts")
	// Each TPC-B transaction updates one account, teller and branch and
	// inserts one history row: 2 clients x 500 transactions.
	if v := value(t, acc, "rows_updated"); v != 1000 {
		t.Errorf("pgbench_accounts rows_updated %v, pgbench ran 1000 transactions", v)
	}
	for _, tbl := range []string{"pgbench_tellers", "pgbench_branches"} {
		if v := value(t, run.Table(tbl), "rows_updated"); v != 1000 {
			t.Errorf("%s rows_updated %v, want 1000", tbl, v)
		}
	}
	if v := value(t, run.Table("pgbench_history"), "rows_inserted"); v != 1000 {
		t.Errorf("pgbench_history rows_inserted %v, want 1000", v)
	}
	hot1 := statTable(t, db, "pgbench_accounts", "n_tup_hot_upd")
	upd1 := statTable(t, db, "pgbench_accounts", "n_tup_upd")
	if upd1-upd0 != 1000 {
		t.Fatalf("pg_stat_user_tables itself says %d updates", upd1-upd0)
	}
	hot := value(t, acc, "hot_updates")
	if hot != float64(hot1-hot0) {
		t.Errorf("hot_updates %v, pg_stat_user_tables says %d", hot, hot1-hot0)
	}
	if r := value(t, acc, "hot_ratio"); math.Abs(r-float64(hot1-hot0)/1000) > 1e-9 {
		t.Errorf("hot_ratio %v, want %v", r, float64(hot1-hot0)/1000)
	}
	// pg_walinspect's exact count: every non-HOT update adds one entry to
	// the primary key, the only index of pgbench_accounts.
	if ix := run.Index("pgbench_accounts_pkey"); ix != nil && metric(t, ix, "leaf_inserts").Exactness == result.Exact {
		if v := value(t, ix, "leaf_inserts"); v != 1000-hot {
			t.Errorf("pgbench_accounts_pkey leaf_inserts %v, want non-HOT updates %v", v, 1000-hot)
		}
	}
	if len(run.Operations) != 0 || run.PerOperation != nil {
		t.Errorf("no --operations: want no operation count, got %v %v", run.Operations, run.PerOperation)
	}
}

func TestMeasureScopeKeepsDatabaseTotalsAndOperationCount(t *testing.T) {
	t.Parallel()
	dsn, db := pgbenchDB(t)
	_, server := openPG(t, dsn)
	w := &measure.Wrapped{Window: window(t, db, server),
		Scope:      collectors.Scope{Tables: []string{"pgbench_accounts"}},
		Operations: 200, OperationName: "transactions",
		Command: []string{"pgbench", "-n", "-t", "100", "-c", "2", dsn},
		Stdout:  &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	res, code, err := w.Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("code %d, %v", code, err)
	}
	run := res.Runs[0]
	if run.Variant != "pgbench" {
		t.Errorf("default label %q, want the command's name", run.Variant)
	}
	var names []string
	for _, o := range run.Tables {
		if o.PartOf() == "public.pgbench_accounts" && o.Info["toast"] == "table" {
			continue // its TOAST table, listed as part of it
		}
		names = append(names, o.Name)
	}
	if len(names) != 1 || names[0] != "pgbench_accounts" {
		t.Errorf("scoped to pgbench_accounts, got tables %v", names)
	}
	for _, ix := range run.Indexes {
		if ix.Table != "pgbench_accounts" {
			t.Errorf("index %s of %s is outside the scope", ix.Name, ix.Table)
		}
	}
	total := run.Database["log_bytes"]
	if !total.OK() || total.V() <= 0 {
		t.Fatalf("database log_bytes %+v", total)
	}
	// Tellers, branches and history are written too but are outside the
	// scope: read from the WAL, their log is counted as other objects.
	if in := run.Database["log_bytes_in_scope"]; in.OK() {
		other := run.Database["log_bytes_other_objects"]
		if !(in.V() > 0 && in.V() < total.V()) || !other.OK() || other.V() <= 0 {
			t.Errorf("in scope %v, other objects %v, total %v", in.V(), other.V(), total.V())
		}
	}
	if run.Operations["transactions"] != 200 || run.MainOperation != "transactions" {
		t.Errorf("operations %v main %q", run.Operations, run.MainOperation)
	}
	if per := run.PerOperation["transaction"]["log_bytes"]; math.Abs(per-total.V()/200) > 1e-6 {
		t.Errorf("log bytes per transaction %v, want %v", per, total.V()/200)
	}
	if run.Throughput <= 0 {
		t.Errorf("throughput %v with an operation count", run.Throughput)
	}
}

func TestMeasureReturnsTheCommandsExitCode(t *testing.T) {
	t.Parallel()
	db, server := openPG(t, testenv.DSN(t, pgEnv))
	w := &measure.Wrapped{Window: window(t, db, server), Scope: collectors.Scope{Schemas: []string{"writeamp_none"}},
		Command: []string{"sh", "-c", "echo partial work; exit 3"}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	res, code, err := w.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || *res.Runs[0].ExitCode != 3 {
		t.Errorf("exit code %d", code)
	}
	if !strings.Contains(strings.Join(res.Runs[0].Warnings, "\n"), "exited with status 3") {
		t.Errorf("warnings %v", res.Runs[0].Warnings)
	}
	if _, code, err := (&measure.Wrapped{Window: window(t, db, server), Command: []string{"writeamp-no-such-command"}}).Run(context.Background()); err == nil || code != -1 {
		t.Errorf("a command that does not exist: code %d, err %v", code, err)
	}
}

func TestSnapshotFilesDiffLikeAWrappedRun(t *testing.T) {
	t.Parallel()
	dsn, db := pgbenchDB(t)
	_, server := openPG(t, dsn)
	set := pgSet(t)
	ctx := context.Background()
	dir := t.TempDir()
	save := func(name string, s *collectors.Snapshot) *measure.SnapshotFile {
		path := filepath.Join(dir, name)
		var buf bytes.Buffer
		if err := measure.NewSnapshotFile(s, "test").Write(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := measure.ReadSnapshot(path)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	b, err := set.Take(ctx, db, server, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	before := save("before.json", b)
	if out, err := exec.Command("pgbench", "-n", "-t", "150", "-c", "2", dsn).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	a, quiet, err := window(t, db, server).Quiesce(ctx, collectors.Scope{}, 12*time.Second)
	if err != nil || !quiet {
		t.Fatalf("quiesce: %v (settled %v)", err, quiet)
	}
	after := save("after.json", a)

	// Without the database, the numbers read from the WAL are named as missing.
	res, err := measure.DiffSnapshots(ctx, measure.DiffInput{Before: before, After: after, Label: "offline"})
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if v := value(t, run.Table("pgbench_accounts"), "rows_updated"); v != 300 {
		t.Errorf("rows_updated %v, want 300", v)
	}
	found := false
	for _, m := range run.Missing {
		found = found || (m.Collector == "pg_wal" && strings.Contains(m.Reason, "--dsn"))
	}
	if !found {
		t.Errorf("offline diff does not say the WAL reader needs --dsn: %+v", run.Missing)
	}
	// With it, the log between the two snapshots is read now.
	online, err := measure.DiffSnapshots(ctx, measure.DiffInput{Before: before, After: after, Window: window(t, db, server)})
	if err != nil {
		t.Fatal(err)
	}
	orun := online.Runs[0]
	hot := value(t, orun.Table("pgbench_accounts"), "hot_updates")
	if ix := orun.Index("pgbench_accounts_pkey"); ix == nil {
		t.Error("no pgbench_accounts_pkey")
	} else if m := ix.Metrics["leaf_inserts"]; m.Exactness == result.Exact && m.V() != 300-hot {
		t.Errorf("online diff: leaf_inserts %v, want %v non-HOT updates", m.V(), 300-hot)
	}
	// The snapshot of another database on the same server is refused.
	other, otherServer := openPG(t, testenv.DSN(t, pgEnv))
	o, err := set.Take(ctx, other, otherServer, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := measure.DiffSnapshots(ctx, measure.DiffInput{Before: before, After: save("other.json", o)}); err == nil {
		t.Error("a diff across databases was accepted")
	}
}
