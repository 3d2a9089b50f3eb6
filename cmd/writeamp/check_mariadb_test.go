package main

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// mariaCatalog is the test's own reading of a database's definitions and of
// the user's table's rows, apart from check's query.
func mariaCatalog(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	rows, err := db.Query(`
select concat('db ', schema_name) from information_schema.schemata where schema_name not like 'writeamp%'
union all
select concat('col ', table_name, '.', column_name, ' ', column_type) from information_schema.columns where table_schema = ?
union all
select concat('idx ', table_name, '.', index_name, ' ', seq_in_index, ' ', column_name) from information_schema.statistics where table_schema = ?
union all
select concat('routine ', routine_name) from information_schema.routines where routine_schema = ?`, name, name, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	var n int
	db.QueryRow("select count(*) from " + name + ".jobs").Scan(&n)
	out = append(out, "jobs rows "+strconv.Itoa(n))
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// On MariaDB the same wrapped check twice in a row gives the same verdict
// and leaves the catalog as it was (the second run failed with "Duplicate
// key name" before the restore); /op is per row written where the server
// counts rows per table (performance_schema table I/O) and says "per
// command" where it cannot; the built-in workload's check fails an index on
// the column its refreshes update and passes an unrelated one.
const perRowUnit = "% of log_bytes per row written"

func TestCheckOnMariaDB(t *testing.T) {
	t.Parallel()
	client := testenv.Tool(t, "mariadb", "mysql")
	// A server of its own: the test runs a dozen checks (about 100 s) and
	// would hold the shared server, and every MariaDB test queued behind it,
	// for all of them.
	base := mysqltest.Private(t)
	db, _ := mysqltest.OpenDSN(t, base)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, state varchar(20), touched int, KEY (state)) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 'new', 0 FROM seq_1_to_2000",
		// Recalculated now, not by InnoDB's background thread inside the
		// first window (its redo would blur the comparison).
		"ANALYZE TABLE "+name+".jobs")
	// Per row written comes from performance_schema's table I/O where the
	// server has it on (a restart setting: MariaDB ships it off) or from
	// userstat (a runtime setting); per command with neither.
	var perfSchema int
	var instrument, userstat string
	db.QueryRow("SELECT @@GLOBAL.performance_schema, @@GLOBAL.userstat").Scan(&perfSchema, &userstat)
	db.QueryRow("SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'wait/io/table/sql/handler'").Scan(&instrument)
	t.Cleanup(func() {
		db.Exec("SET GLOBAL userstat = " + userstat)
		if instrument != "" {
			db.Exec("UPDATE performance_schema.setup_instruments SET ENABLED = ? WHERE NAME = 'wait/io/table/sql/handler'", instrument)
		}
	})
	perRow := []string{"SET GLOBAL userstat = 1"}
	perCommand := []string{"SET GLOBAL userstat = 0"}
	if perfSchema == 1 {
		perCommand = append(perCommand, "UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = 'wait/io/table/sql/handler'")
	}
	dsn := mariaDSNOf(t, base, name)
	dir := t.TempDir()
	up := write(t, dir, "up.sql", "create index jobs_touched on jobs(touched);")
	var work strings.Builder
	// Every row: whatever background redo (purge, statistics) lands in a
	// window is then small beside the +27% the new index adds.
	for i := 1; i <= 2000; i++ {
		work.WriteString("update jobs set touched = touched + 1 where id = " + strconv.Itoa(i) + ";\n")
	}
	workSQL := write(t, dir, "work.sql", work.String())
	u := strings.TrimPrefix(dsn, "mysql://")
	userHost, _, _ := strings.Cut(u, "/")
	user, hostPort, _ := strings.Cut(userHost, "@")
	host, port, _ := strings.Cut(hostPort, ":")
	cmd := []string{"--", "sh", "-c", client + ` -u"$1" -h"$2" -P"$3" "$4" < "$5"`, "sh", user, host, port, name, workSQL}
	orig := mariaCatalog(t, db, name)
	for _, c := range []struct {
		settings []string
		perOp    string
	}{{perRow, perRowUnit}, {perCommand, "% of log_bytes per command"}} {
		mysqltest.Exec(t, db, c.settings...)
		var verdicts []string
		// Twice in a row where rows are counted; once per command (the
		// repeat is the same code, and each check costs the suite ~20 s).
		times := 2
		if c.perOp != perRowUnit {
			times = 1
		}
		for range times {
			// --repeat 3: the server's redo is whole-server and a loaded
			// machine's background work (purge, flushing) landed in single
			// windows often enough to flip a +22% change or a +1% one.
			out, _, err := run(t, append([]string{"check", "--in-place", "-q", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+10%", "--repeat", "3", "--format", "json"}, cmd...)...)
			d := readCheck(t, out)
			verdicts = append(verdicts, d.Check)
			if exitCode(err) == 2 || d.Restore.Method != "undo" || !d.Restore.Checked || len(d.Restore.Left) > 0 || len(d.Budgets) != 1 || d.Budgets[0].Unit != c.perOp {
				t.Errorf("%v: exit %d (%v), restore %+v, budgets %+v", c.settings, exitCode(err), err, d.Restore, d.Budgets)
			}
			if now := mariaCatalog(t, db, name); now != orig {
				t.Fatalf("the catalog changed:\n--- before\n%s\n--- after\n%s", orig, now)
			}
		}
		if slices.ContainsFunc(verdicts, func(v string) bool { return v != "fail" }) {
			t.Errorf("%v: verdicts %v, want fail each time (redo per update grows with the new index)", c.settings, verdicts)
		}
	}

}

// TestCheckBuiltinOnMariaDB is the built-in workload's check on MariaDB, on
// a server of its own beside TestCheckOnMariaDB's (each is a minute of
// checks; one after the other they were the package's longest test).
func TestCheckBuiltinOnMariaDB(t *testing.T) {
	t.Parallel()
	base := mysqltest.Private(t)
	db, _ := mysqltest.OpenDSN(t, base)
	name := mysqltest.TempDatabase(t, db)
	dsn := mariaDSNOf(t, base, name)
	dir := t.TempDir()
	orig := mariaCatalog(t, db, name)
	for _, c := range []struct {
		sql, want string
	}{
		{"create index idx_lsr on offline_user_session (last_session_refresh);", "fail"},
		{"create index idx_uid on offline_user_session (user_id, created_on);", "pass"},
	} {
		m := write(t, dir, filepath.Base(c.want)+".sql", c.sql)
		{ // once (the twice-in-a-row property is the wrapped checks' above)
			// Index entries per refresh, not redo: the same seed makes the
			// same rows, so the verdict is the workload's (idx_lsr: one entry
			// per refresh, +71%; idx_uid: one per login, +7%), where the
			// whole server's redo moved with the machine's load and a loaded
			// suite read idx_lsr's +14% as inside the spread.
			out, _, err := run(t, "check", "-q", "--dsn", dsn, "--variant", "baseline", "--logins", "200", "--migration", m,
				"--budget", "index_entries/op[offline_user_session]<=+20%", "--format", "json")
			d := readCheck(t, out)
			if d.Check != c.want || d.Restore.Method != "workload-schema" || !d.Restore.Checked || len(d.Restore.Left) > 0 {
				t.Errorf("built-in %q: %s (exit %d, %v), restore %+v", c.sql, d.Check, exitCode(err), err, d.Restore)
			}
			if c.want == "fail" && !strings.Contains(out, "InnoDB has no HOT") {
				t.Errorf("built-in %q: no static warning for MariaDB:\n%.2000s", c.sql, out)
			}
		}
	}
	if now := mariaCatalog(t, db, name); now != orig {
		t.Fatalf("the built-in checks changed the catalog:\n%s", now)
	}
}
