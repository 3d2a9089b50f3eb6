package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func TestProbeRealServer(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	_ = db
	t.Logf("%s (VersionNum %d, flavor %s, identity %s)", s, s.VersionNum, s.Flavor, s.Identity)
	for c, ok := range s.Caps {
		t.Logf("  %-32s %-5v %s", c, ok, s.Reasons[c])
	}
	if s.Dialect != my.Name || s.VersionNum == 0 || s.Identity == "" {
		t.Fatalf("probe: %+v", s)
	}
	// The LSN source must exist on any supported server (MariaDB, or MySQL 8.0.30+).
	if !s.Has(my.CapLSNCurrent) && !s.Has(my.CapRedoLSN) {
		t.Errorf("no redo LSN status variable: %s / %s", s.Why(my.CapLSNCurrent), s.Why(my.CapRedoLSN))
	}
	if my.IsMariaDB(s) != (s.VersionNum >= my.MariaDBBase) {
		t.Error("flavor and VersionNum disagree")
	}
}

func monitorStates(t *testing.T, db *sql.DB, s dialects.Server) (map[string]bool, [2]sql.NullString) {
	t.Helper()
	rows, err := db.Query(mocksql.SQL(t, my.Name, "monitor_state", s.VersionNum))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		var on bool
		if err := rows.Scan(&n, &on); err != nil {
			t.Fatal(err)
		}
		out[n] = on
	}
	var vars [2]sql.NullString
	if err := db.QueryRow(mocksql.SQL(t, my.Name, "monitor_vars", s.VersionNum)).Scan(&vars[0], &vars[1]); err != nil {
		t.Fatal(err)
	}
	return out, vars
}

// Instrument turns module_index on, and its undo leaves every counter as it
// was: tried from "all off" and from "only index_page_splits on". The
// server's own state is put back at the end.
func TestInstrumentRestoresMonitorsExactly(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	if !s.Has(my.CapInnodbMetrics) {
		t.Skip("the test login lacks PROCESS: " + s.Why(my.CapInnodbMetrics))
	}
	orig, _ := monitorStates(t, db, s)
	t.Cleanup(func() {
		for n, on := range orig {
			verb := "disable"
			if on {
				verb = "enable"
			}
			db.Exec(fmt.Sprintf("SET GLOBAL innodb_monitor_%s = '%s'", verb, n))
		}
		db.Exec("SET GLOBAL innodb_monitor_enable = DEFAULT")
		db.Exec("SET GLOBAL innodb_monitor_disable = DEFAULT")
	})
	for _, setup := range [][]string{
		{"SET GLOBAL innodb_monitor_disable = 'module_index'", "SET GLOBAL innodb_monitor_enable = DEFAULT", "SET GLOBAL innodb_monitor_disable = DEFAULT"},
		{"SET GLOBAL innodb_monitor_disable = 'module_index'", "SET GLOBAL innodb_monitor_enable = 'index_page_splits'", "SET GLOBAL innodb_monitor_disable = DEFAULT"},
	} {
		mysqltest.Exec(t, db, setup...)
		_, s := mysqltest.OpenDSN(t, mysqltest.DSN(t))
		before, vars := monitorStates(t, db, s)
		undo, warns := my.Dialect{}.Instrument(context.Background(), db, &s)
		if undo == nil {
			t.Fatalf("not instrumented (%v): %s", warns, s.Why(my.CapIndexMonitor))
		}
		during, _ := monitorStates(t, db, s)
		for n, on := range during {
			if !on {
				t.Errorf("%s still off during the window", n)
			}
		}
		if err := undo(context.Background()); err != nil {
			t.Fatal(err)
		}
		after, vars2 := monitorStates(t, db, s)
		if !reflect.DeepEqual(before, after) {
			t.Errorf("monitors not restored:\nbefore %v\nafter  %v", before, after)
		}
		if !vars[0].Valid && vars2[0].Valid || !vars[1].Valid && vars2[1].Valid {
			t.Errorf("variables not restored: %v -> %v", vars, vars2)
		}
		t.Logf("before %v, during all on, after %v (vars %v -> %v)", before, after, vars, vars2)
	}
}

// Settle waits until purge removed what a burst of deletes left behind.
func TestSettleWaitsForPurge(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, v varchar(100), KEY (v)) ENGINE=InnoDB",
		"INSERT INTO "+name+".t SELECT seq, CONCAT('v', seq) FROM seq_1_to_3000")
	ctx := context.Background()
	base, src, err := my.HistoryLength(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	if w := (my.Dialect{}).BeforeMeasure(ctx, db, s); len(w) > 0 {
		t.Fatal(w)
	}
	// Many small transactions: each leaves an undo log for purge.
	for i := 1; i <= 3000; i += 3 {
		if _, err := db.Exec(fmt.Sprintf("DELETE FROM %s.t WHERE id = %d", name, i)); err != nil {
			t.Fatal(err)
		}
	}
	peak, _, _ := my.HistoryLength(ctx, db, s)
	start := time.Now()
	if w := (my.Dialect{}).Settle(ctx, db, s, []string{name}); len(w) > 0 {
		t.Fatal(w)
	}
	after, _, _ := my.HistoryLength(ctx, db, s)
	t.Logf("%s: %d before, %d after the deletes, %d after Settle (%s)", src, base, peak, after, time.Since(start).Round(time.Millisecond))
	if after > base {
		t.Errorf("Settle returned with history %d > %d", after, base)
	}
}

// On MariaDB a schema's lock is a GET_LOCK named after it: a leftover whose
// lock another session holds is in use and left alone, one whose lock is
// free is dropped, whatever pid and host its marker names.
func TestLeftoversAreJudgedByGetLock(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	live, dead := mysqltest.Name("writeamp_rt_")+"_baseline", mysqltest.Name("writeamp_rt_")+"_coarse"
	for _, n := range []string{live, dead} {
		mysqltest.Exec(t, db, "CREATE DATABASE "+n,
			"CREATE TABLE "+n+".writeamp_owner (run_id varchar(64), pid int, host varchar(255), started varchar(64), lock_kind varchar(16), kept int)",
			"INSERT INTO "+n+".writeamp_owner VALUES ('r', 4194999, 'elsewhere', 'then', 'session', 0)")
	}
	t.Cleanup(func() {
		for _, n := range []string{live, dead} {
			db.Exec("DROP DATABASE IF EXISTS " + n)
		}
	})
	holder, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var got sql.NullInt64
	if err := holder.QueryRowContext(context.Background(), "SELECT GET_LOCK(?, 0)", "writeamp:"+live).Scan(&got); err != nil || got.Int64 != 1 {
		t.Fatalf("hold the live run's lock: %v %v", got, err)
	}
	dropped, left, err := refreshtoken.New(refreshtoken.DefaultParams()).CleanLeftovers(context.Background(), dialects.Target{DB: db, Dialect: my.Dialect{}, Server: s})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0] != dead {
		t.Errorf("dropped %v, want %s", dropped, dead)
	}
	if !strings.Contains(strings.Join(left, "\n"), live+" (in use") {
		t.Errorf("left %v should list %s in use", left, live)
	}
	var n int
	db.QueryRow("SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", live).Scan(&n)
	if n != 1 {
		t.Error("the live schema was dropped")
	}
}

// Two runs at once: the first to end used to turn the monitors off under
// the other's window. Now the last one out restores them; and after a run
// killed before its undo, the record it left in writeamp_ledger lets the
// next run restore them and say so.
func TestMonitorsAreSharedByConcurrentRunsAndRestoredByTheLast(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	if !s.Has(my.CapInnodbMetrics) {
		t.Skip("the test login lacks PROCESS: " + s.Why(my.CapInnodbMetrics))
	}
	orig, _ := monitorStates(t, db, s)
	t.Cleanup(func() {
		for n, on := range orig {
			verb := "disable"
			if on {
				verb = "enable"
			}
			db.Exec(fmt.Sprintf("SET GLOBAL innodb_monitor_%s = '%s'", verb, n))
		}
		db.Exec("SET GLOBAL innodb_monitor_enable = DEFAULT")
		db.Exec("SET GLOBAL innodb_monitor_disable = DEFAULT")
		db.Exec("DROP DATABASE IF EXISTS writeamp_ledger")
	})
	mysqltest.Exec(t, db, "SET GLOBAL innodb_monitor_disable = 'module_index'", "SET GLOBAL innodb_monitor_enable = DEFAULT", "SET GLOBAL innodb_monitor_disable = DEFAULT")
	off, _ := monitorStates(t, db, s)
	ctx := context.Background()
	instrument := func() (func(context.Context) error, []string, dialects.Server) {
		dbx, sx := mysqltest.OpenDSN(t, mysqltest.DSN(t))
		undo, notes := my.Dialect{}.Instrument(ctx, dbx, &sx)
		if undo == nil || !sx.Has(my.CapIndexMonitor) {
			t.Fatalf("not instrumented: %v", notes)
		}
		return undo, notes, sx
	}
	allOn := func(when string) {
		st, _ := monitorStates(t, db, s)
		for n, on := range st {
			if !on {
				t.Errorf("%s: %s is off", when, n)
			}
		}
	}
	undoA, _, _ := instrument()
	undoB, notesB, _ := instrument()
	if !strings.Contains(strings.Join(notesB, " "), "another writeamp run still measuring") {
		t.Errorf("B's notes: %v", notesB)
	}
	if err := undoA(ctx); !errors.Is(err, dialects.ErrInUse) {
		t.Errorf("A ends first: %v, want ErrInUse (B still measures)", err)
	}
	allOn("after A ended, B measuring")
	if err := undoB(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := monitorStates(t, db, s); !reflect.DeepEqual(after, off) {
		t.Errorf("not restored by the last run: %v, want %v", after, off)
	}

	// A run killed before its undo: its session ends, its record stays.
	dbk, sk := mysqltest.OpenDSN(t, mysqltest.DSN(t))
	if undo, notes := (my.Dialect{}).Instrument(ctx, dbk, &sk); undo == nil {
		t.Fatalf("not instrumented: %v", notes)
	}
	// The process dies: the server ends its session (KILL stands for the
	// closed socket), no undo runs.
	var id sql.NullInt64
	for i := 0; i < 32 && !id.Valid; i++ {
		db.QueryRow("SELECT IS_USED_LOCK(CONCAT('writeamp:measuring:', ?))", i).Scan(&id)
	}
	if !id.Valid {
		t.Fatal("the killed run held no measuring slot")
	}
	mysqltest.Exec(t, db, fmt.Sprintf("KILL %d", id.Int64))
	time.Sleep(200 * time.Millisecond)
	allOn("after the kill")
	left, err := my.Dialect{}.Leftovers(ctx, db, s, false)
	if err != nil || len(left) != 1 || !strings.Contains(left[0], "abandoned") {
		t.Errorf("clean should list the monitors as abandoned: %v %v", left, err)
	}
	undoC, notesC, _ := instrument()
	if !strings.Contains(strings.Join(notesC, " "), "left on by a writeamp run that did not finish") {
		t.Errorf("the next run should say it restores them: %v", notesC)
	}
	if err := undoC(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := monitorStates(t, db, s); !reflect.DeepEqual(after, off) {
		t.Errorf("not restored after the kill: %v, want %v", after, off)
	}
	var n int
	db.QueryRow("SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'writeamp_ledger'").Scan(&n)
	if n != 0 {
		t.Error("writeamp_ledger left behind")
	}
}
