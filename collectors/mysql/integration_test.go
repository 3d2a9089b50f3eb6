package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	cm "github.com/writeamp/writeamp/collectors/mysql"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/result"
)

// window measures fn between two snapshots the way a run does: instrument,
// BeforeMeasure, snapshot, fn, Settle, snapshot, diff, derive.
func window(t *testing.T, db *sql.DB, s dialects.Server, sc collectors.Scope, fn func() []collectors.Write) *collectors.Delta {
	t.Helper()
	ctx := context.Background()
	d := my.Dialect{}
	undo, warns := d.Instrument(ctx, db, &s)
	if undo != nil {
		defer func() {
			// ErrInUse: another package's run measures too; the last restores.
			if err := undo(ctx); err != nil && !errors.Is(err, dialects.ErrInUse) {
				t.Error(err)
			}
		}()
	}
	warns = append(warns, d.BeforeMeasure(ctx, db, s)...)
	set, err := collectors.For(my.Name)
	if err != nil {
		t.Fatal(err)
	}
	before, err := set.Take(ctx, db, s, sc)
	if err != nil {
		t.Fatal(err)
	}
	writes := fn()
	warns = append(warns, d.Settle(ctx, db, s, sc.Schemas)...)
	after, err := set.Take(ctx, db, s, sc)
	if err != nil {
		t.Fatal(err)
	}
	delta, err := collectors.Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	delta.Writes = writes
	set.RunInterval(ctx, db, delta)
	for _, w := range warns {
		t.Log("warning: " + w)
	}
	for _, m := range delta.Missing {
		t.Logf("missing: %s: %s (fix: %s)", m.Collector, m.Reason, m.Fix)
	}
	return delta
}

func dbm(d *collectors.Delta, metric string) result.Metric {
	return d.Get(collectors.Key{Level: collectors.DB, Metric: metric})
}

func idxm(d *collectors.Delta, obj, metric string) result.Metric {
	return d.Get(collectors.Key{Level: collectors.Index, Object: obj, Metric: metric})
}

func exec(t *testing.T, db *sql.DB, n int, format string) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if _, err := db.Exec(fmt.Sprintf(format, i)); err != nil {
			t.Fatal(err)
		}
	}
}

// Row counts are the server's (Handler_* on MariaDB, Innodb_rows_* on MySQL)
// and must equal what the test did, statement by statement.
func TestRowCountsMatchGroundTruth(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, a int, b int, KEY ia (a)) ENGINE=InnoDB")
	const n, u, del = 500, 120, 30
	sc := collectors.Scope{Schemas: []string{name}}
	d := window(t, db, s, sc, func() []collectors.Write {
		exec(t, db, n, "INSERT INTO "+name+".t VALUES (%[1]d, %[1]d, 0)")
		exec(t, db, u, "UPDATE "+name+".t SET b = b + 1 WHERE id = %d")
		exec(t, db, del, "DELETE FROM "+name+".t WHERE id = %d")
		return nil
	})
	for metric, want := range map[string]float64{"rows_inserted": n, "rows_updated": u, "rows_deleted": del} {
		m := dbm(d, metric)
		t.Logf("%s = %v (%s, %s)", metric, m.V(), m.Exactness, m.Source)
		if !m.OK() || m.V() != want {
			t.Errorf("%s = %v, want %v", metric, m.V(), want)
		}
	}
	lb := dbm(d, "log_bytes")
	t.Logf("log_bytes = %v (%s); log_bytes_written = %v", lb.V(), lb.Source, dbm(d, "log_bytes_written").V())
	if !lb.OK() || lb.V() <= 0 {
		t.Errorf("log_bytes %+v", lb)
	}
}

// Redo bytes grow with the number of updates: ten times the updates, several
// times the redo.
func TestRedoGrowsWithUpdates(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, v int, pad char(100)) ENGINE=InnoDB",
		"INSERT INTO "+name+".t SELECT seq, 0, 'x' FROM seq_1_to_2000")
	sc := collectors.Scope{Schemas: []string{name}}
	var redo [2]float64
	for i, n := range []int{200, 2000} {
		d := window(t, db, s, sc, func() []collectors.Write {
			exec(t, db, n, "UPDATE "+name+".t SET v = v + 1 WHERE id = %d")
			return nil
		})
		redo[i] = dbm(d, "log_bytes").V()
		t.Logf("%d updates: %v redo bytes (%.0f per update)", n, redo[i], redo[i]/float64(n))
	}
	if redo[0] <= 0 || redo[1] < 5*redo[0] {
		t.Errorf("redo did not grow with the updates: %v", redo)
	}
}

// The derived index writes of an UPDATE that changes one indexed column
// touch only that index (and update PRIMARY in place), reading the real
// catalog; the server's own row counts agree with the statement counts.
func TestDerivedUpdateTouchesOnlyChangedIndex(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, a int, b varchar(300), c int, KEY ia (a), KEY ib (b(20), c)) ENGINE=InnoDB",
		"CREATE TABLE "+name+".other (id int PRIMARY KEY, a int, KEY ia2 (a)) ENGINE=InnoDB")
	const n, u = 300, 100
	d := window(t, db, s, collectors.Scope{Schemas: []string{name}}, func() []collectors.Write {
		exec(t, db, n, "INSERT INTO "+name+".t VALUES (%[1]d, %[1]d, 'b', 0)")
		exec(t, db, u, "UPDATE "+name+".t SET a = a + 1000 WHERE id = %d")
		return []collectors.Write{
			{Statement: "insert", Schema: name, Table: "t", Kind: "insert", Rows: n},
			{Statement: "update_a", Schema: name, Table: "t", Kind: "update", Columns: []string{"a"}, Rows: u},
		}
	})
	ib, ok := d.Object(name + ".ib")
	if !ok || ib.Info["columns"] != "b,c" || ib.Info["prefix"] != "b:20" {
		t.Fatalf("catalog entry of ib: %+v", ib)
	}
	if pk, ok := d.Object(name + ".t.PRIMARY"); !ok || pk.Info["primary"] != "true" || pk.Info["columns"] != "id" {
		t.Fatalf("catalog entry of PRIMARY: %+v", pk)
	}
	for k, want := range map[string]float64{
		"ia:leaf_inserts": n + u, "ia:leaf_deletes": u,
		"ib:leaf_inserts": n, "ib:leaf_deletes": 0,
		"t.PRIMARY:leaf_inserts": n, "t.PRIMARY:leaf_updates": u,
		"ia2:leaf_inserts": 0, "other.PRIMARY:leaf_inserts": 0,
	} {
		obj, metric, _ := strings.Cut(k, ":")
		m := idxm(d, name+"."+obj, metric)
		if !m.OK() || m.V() != want || m.Exactness != result.Derived {
			t.Errorf("%s = %v (%s), want %v", k, m.V(), m.Exactness, want)
		}
	}
	m := idxm(d, name+".ia", "leaf_inserts")
	t.Logf("ia leaf_inserts = %v\n  source: %s\n  note: %s", m.V(), m.Source, m.Note)
	if got := dbm(d, "rows_updated").V(); got != u {
		t.Errorf("server-counted rows_updated %v, statements said %d", got, u)
	}
}

// With the monitors on for the window, random-key inserts show page splits,
// and the persistent statistics show the leaf pages that grew.
func TestPageSplitsAndLeafPages(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	if !s.Has(my.CapInnodbMetrics) {
		t.Skip(s.Why(my.CapInnodbMetrics))
	}
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id char(36) PRIMARY KEY, pad varchar(200)) ENGINE=InnoDB STATS_AUTO_RECALC=0")
	d := window(t, db, s, collectors.Scope{Schemas: []string{name}}, func() []collectors.Write {
		mysqltest.Exec(t, db, "INSERT INTO "+name+".t SELECT UUID(), REPEAT('x', 200) FROM seq_1_to_5000",
			"ANALYZE TABLE "+name+".t")
		return []collectors.Write{{Statement: "insert", Schema: name, Table: "t", Kind: "insert", Rows: 5000}}
	})
	splits := dbm(d, "page_splits")
	leaf := idxm(d, name+".t.PRIMARY", "leaf_pages")
	ins := idxm(d, name+".t.PRIMARY", "leaf_inserts")
	t.Logf("page_splits %v (%s); leaf pages %+v (%s); leaf_inserts %v, note: %s", splits.V(), splits.Source, leaf.V(), leaf.Exactness, ins.V(), ins.Note)
	if !splits.OK() || splits.V() <= 0 {
		t.Errorf("page_splits %+v", splits)
	}
	// 5000 rows of ~240 bytes need at least 5000*240/16384 ≈ 73 leaf pages.
	if !leaf.OK() || leaf.V() < 60 || leaf.Exactness != result.Approx {
		t.Errorf("leaf_pages %+v", leaf)
	}
	if !strings.Contains(ins.Note, "leaf pages") {
		t.Errorf("no cross-check beside the derived figure: %q", ins.Note)
	}
}

// A login without PROCESS gets a PrivilegeError (with the GRANT) for
// INNODB_METRICS, and the rest of the snapshot still works.
func TestUnprivilegedUser(t *testing.T) {
	t.Parallel()
	db, _ := mysqltest.Open(t)
	user := mysqltest.Name("wa_t_")
	pass := "Pw-" + mysqltest.Name("")
	mysqltest.Exec(t, db, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", user, pass))
	t.Cleanup(func() {
		if _, err := db.Exec(fmt.Sprintf("DROP USER '%s'@'%%'", user)); err != nil {
			t.Errorf("drop test user: %v", err)
		}
	})
	u, err := url.Parse(mysqltest.DSN(t))
	if err != nil || u.Scheme == "" {
		t.Skip("the unprivileged-user test needs a URL DSN")
	}
	u.User = url.UserPassword(user, pass)
	u.Path = "/"
	udb, us := mysqltest.OpenDSN(t, u.String())
	if us.Has(my.CapInnodbMetrics) || !strings.Contains(us.Why(my.CapInnodbMetrics), "GRANT PROCESS ON *.* TO '"+user+"'@'%'") {
		t.Errorf("probe: %v %s", us.Has(my.CapInnodbMetrics), us.Why(my.CapInnodbMetrics))
	}
	set, _ := collectors.For(my.Name)
	snap, err := set.Take(context.Background(), udb, us, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	fixes := map[string]string{}
	for _, m := range snap.Missing {
		fixes[m.Collector] = m.Fix
		t.Logf("missing %s: %s (fix: %s)", m.Collector, m.Reason, m.Fix)
	}
	if fixes["innodb_metrics"] != "GRANT PROCESS ON *.* TO '"+user+"'@'%'" {
		t.Errorf("innodb_metrics fix %q", fixes["innodb_metrics"])
	}
	var pe *dialects.PrivilegeError
	if err := (cm.InnodbMetrics{}).Supports(us); err == nil || !asPriv(err, &pe) {
		t.Errorf("Supports: %v", err)
	}
	// Asking anyway gives the typed error too.
	if _, err := (cm.InnodbMetrics{}).Collect(context.Background(), udb, us, collectors.Scope{}); !asPriv(err, &pe) || pe.Privilege != "PROCESS" {
		t.Errorf("Collect without PROCESS: %v", err)
	}
	have := map[string]bool{}
	for _, c := range snap.Counters {
		have[c.Metric] = true
	}
	for _, m := range []string{"log_bytes", "log_bytes_written", "rows_inserted", "waits.row_lock"} {
		if !have[m] {
			t.Errorf("%s missing from the unprivileged snapshot", m)
		}
	}
	// Purge wait: MariaDB's status variable needs no privilege.
	if _, src, err := my.HistoryLength(context.Background(), udb, us); err != nil && my.IsMariaDB(us) {
		t.Errorf("history length without PROCESS: %v", err)
	} else {
		t.Logf("history length readable without PROCESS via %q (err %v)", src, err)
	}
}

func asPriv(err error, pe **dialects.PrivilegeError) bool {
	return err != nil && errorsAs(err, pe)
}
