package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// mariaDSN is the test server's DSN with another database in the path.
func mariaDSN(t *testing.T, database string) string {
	t.Helper()
	return mariaDSNOf(t, mysqltest.DSN(t), database)
}

// mariaDSNOf is base (a URL DSN) naming database.
func mariaDSNOf(t *testing.T, base, database string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		t.Fatalf("%s must be a URL for this test", mysqltest.EnvDSN)
	}
	u.Path = "/" + database
	return u.String()
}

// twoDatabases makes a database with a keyed table and one without a key,
// and a second database with a table of its own.
func twoDatabases(t *testing.T, db *sql.DB) (a, b string) {
	t.Helper()
	a, b = mysqltest.TempDatabase(t, db), mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db,
		"CREATE TABLE "+a+".t (id int PRIMARY KEY, v int, KEY iv (v)) ENGINE=InnoDB",
		"CREATE TABLE "+a+".nopk (id int, v int) ENGINE=InnoDB",
		"CREATE TABLE "+b+".other (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"INSERT INTO "+a+".t SELECT seq, seq FROM seq_1_to_200",
		"INSERT INTO "+a+".nopk SELECT seq, seq FROM seq_1_to_200",
		"INSERT INTO "+b+".other SELECT seq, seq FROM seq_1_to_200",
		"ANALYZE TABLE "+a+".t, "+a+".nopk, "+b+".other")
	return a, b
}

func objectsOf(t *testing.T, path string) (tables, indexes []string, indexTable map[string]string) {
	t.Helper()
	r, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	indexTable = map[string]string{}
	for _, o := range r.Runs[0].Tables {
		tables = append(tables, o.Schema+"."+o.Name)
	}
	for _, o := range r.Runs[0].Indexes {
		indexes = append(indexes, o.Schema+"."+o.Name)
		indexTable[o.Schema+"."+o.Name] = o.Table
	}
	return tables, indexes, indexTable
}

// TestMariaDBMeasureIsScopedToTheDSNsDatabase holds item 12 of issue 12:
// measure against …/a reports a's tables only (no other database, no
// mysql.gtid_slave_pos), --schema widens it, and the hidden clustered index
// of a table without a primary key is attached to its table.
func TestMariaDBMeasureIsScopedToTheDSNsDatabase(t *testing.T) {
	t.Parallel()
	db, _ := mysqltest.Open(t)
	a, b := twoDatabases(t, db)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.json")
	if _, _, err := run(t, "measure", "-q", "--dsn", mariaDSN(t, a), "--format", "json", "-o", out, "--", "true"); err != nil {
		t.Fatal(err)
	}
	tables, indexes, indexTable := objectsOf(t, out)
	for _, o := range append(tables, indexes...) {
		if !strings.HasPrefix(o, a+".") {
			t.Errorf("measure on %s reports %s", a, o)
		}
	}
	if !slices.Contains(tables, a+".t") || !slices.Contains(indexes, a+".t.PRIMARY") || !slices.Contains(indexes, a+".iv") {
		t.Errorf("a's own objects missing: %v %v", tables, indexes)
	}
	if got := indexTable[a+".nopk.GEN_CLUST_INDEX"]; got != "nopk" {
		t.Errorf("GEN_CLUST_INDEX is attached to %q, want nopk (indexes %v)", got, indexes)
	}

	// --schema replaces the default; '*' is every user database, still no system table.
	if _, _, err := run(t, "measure", "-q", "--dsn", mariaDSN(t, a), "--schema", a+","+b, "--format", "json", "-o", out, "--", "true"); err != nil {
		t.Fatal(err)
	}
	if tables, _, _ = objectsOf(t, out); !slices.Contains(tables, b+".other") || !slices.Contains(tables, a+".t") {
		t.Errorf("--schema %s,%s: %v", a, b, tables)
	}
	if _, _, err := run(t, "measure", "-q", "--dsn", mariaDSN(t, a), "--schema", "*", "--format", "json", "-o", out, "--", "true"); err != nil {
		t.Fatal(err)
	}
	tables, indexes, _ = objectsOf(t, out)
	if !slices.Contains(tables, b+".other") {
		t.Errorf("--schema '*' lacks %s.other: %v", b, tables)
	}
	for _, o := range append(tables, indexes...) {
		if strings.HasPrefix(o, "mysql.") {
			t.Errorf("system object %s reported", o)
		}
	}
}

// monitorState is the on/off state of the counters writeamp reads, and the
// innodb_monitor_enable variable.
func monitorState(t *testing.T, db *sql.DB) (map[string]bool, sql.NullString) {
	t.Helper()
	rows, err := db.Query("SELECT NAME, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME LIKE 'index_page_%' OR NAME IN ('trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits', 'trx_rollbacks')")
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
	var v sql.NullString
	if err := db.QueryRow("SELECT @@GLOBAL.innodb_monitor_enable").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return out, v
}

func allOff(t *testing.T, db *sql.DB) {
	t.Helper()
	on, v := monitorState(t, db)
	for n, x := range on {
		if x {
			t.Errorf("%s left on", n)
		}
	}
	if v.Valid {
		t.Errorf("innodb_monitor_enable left as %q", v.String)
	}
}

// TestMariaDBRootIsNotToldItLacksSuper holds item 11 of issue 12: with the
// monitors off (the server's default), doctor and snapshot name that cause
// and the flag that fixes it, never GRANT SUPER, to root; a login without
// SUPER is told it needs it.
func TestMariaDBRootIsNotToldItLacksSuper(t *testing.T) {
	t.Parallel()
	db, _ := mysqltest.Open(t)
	allOff(t, db)
	a, _ := twoDatabases(t, db)
	out, _, err := run(t, "doctor", "--dsn", mariaDSN(t, a))
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	if strings.Contains(out, "GRANT SUPER") || strings.Contains(out, "missing privilege SUPER") {
		t.Errorf("doctor asks root for SUPER:\n%s", out)
	}
	if !strings.Contains(out, "are off (the server's default)") || !strings.Contains(out, "--enable-monitors") {
		t.Errorf("doctor does not name the cause:\n%s", out)
	}
	snap := filepath.Join(t.TempDir(), "s.json")
	if _, _, err := run(t, "snapshot", "-q", "--dsn", mariaDSN(t, a), "-o", snap); err != nil {
		t.Fatal(err)
	}
	f, err := measure.ReadSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range f.Snapshot.Missing {
		if m.Collector == "innodb_metrics" && (strings.Contains(m.Reason+m.Fix, "GRANT SUPER") || !strings.Contains(m.Reason, "--enable-monitors")) {
			t.Errorf("snapshot tells root: %+v", m)
		}
	}

	// A login with PROCESS but without SUPER is told what it lacks.
	user, pass := mysqltest.Name("wa_ns_"), "Pw-"+mysqltest.Name("")
	mysqltest.Exec(t, db, "CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+pass+"'", "GRANT PROCESS ON *.* TO '"+user+"'@'%'",
		"GRANT SELECT ON "+a+".* TO '"+user+"'@'%'")
	t.Cleanup(func() { db.Exec("DROP USER '" + user + "'@'%'") })
	u, _ := url.Parse(mariaDSN(t, a))
	u.User = url.UserPassword(user, pass)
	out, _, _ = run(t, "doctor", "--dsn", u.String())
	if !strings.Contains(out, "GRANT SUPER ON *.* TO '"+user+"'@'%'") || !strings.Contains(out, "may not turn them on") {
		t.Errorf("a login without SUPER is not told it needs it:\n%s", out)
	}
}

// TestMariaDBSnapshotEnableMonitors: snapshot --enable-monitors turns the
// counters on for the window, diff --dsn turns exactly them off again, and
// an interrupted snapshot turns them off at once.
func TestMariaDBSnapshotEnableMonitors(t *testing.T) {
	db, _ := mysqltest.Open(t)
	allOff(t, db)
	a, _ := twoDatabases(t, db)
	dsn := mariaDSN(t, a)
	dir := t.TempDir()
	before, after, res := filepath.Join(dir, "b.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "r.json")
	if _, _, err := run(t, "snapshot", "-q", "--dsn", dsn, "--enable-monitors", "-o", before); err != nil {
		t.Fatal(err)
	}
	on, _ := monitorState(t, db)
	if !on["index_page_splits"] || !on["trx_rw_commits"] {
		t.Fatalf("monitors not on for the window: %v", on)
	}
	for i := 1; i <= 100; i++ {
		mysqltest.Exec(t, db, "UPDATE "+a+".t SET v = v + 1 WHERE id = "+strconv.Itoa(i))
	}
	if _, _, err := run(t, "snapshot", "-q", "--dsn", dsn, "-o", after); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "diff", "-q", "--dsn", dsn, "--format", "json", "-o", res, before, after); err != nil {
		t.Fatal(err)
	}
	allOff(t, db)
	r, err := result.Read(res)
	if err != nil {
		t.Fatal(err)
	}
	if tc := r.Runs[0].Database["transactions_committed"]; !tc.OK() || tc.V() < 100 {
		t.Errorf("transactions_committed over the window = %+v, want >= 100", tc)
	}
	if ps := r.Runs[0].Database["page_splits"]; !ps.OK() {
		t.Errorf("page_splits over the window = %+v", ps)
	}
	data, _ := json.Marshal(r.Notes)
	if !strings.Contains(string(data), "turned off again") {
		t.Errorf("the result does not say the monitors were turned off: %s", data)
	}

	// Interrupted between turning them on and writing the file: off at once,
	// and no file.
	interrupted := filepath.Join(dir, "i.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := newRootFor(&app{stderr: os.Stderr, afterInstrument: cancel})
	root.SetArgs([]string{"snapshot", "-q", "--dsn", dsn, "--enable-monitors", "-o", interrupted})
	if err := root.ExecuteContext(ctx); err == nil {
		t.Error("an interrupted snapshot reported success")
	}
	allOff(t, db)
	if _, err := os.Stat(interrupted); err == nil {
		t.Error("an interrupted snapshot wrote its file")
	}
}
