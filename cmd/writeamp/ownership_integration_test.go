package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/result"
)

// inNewPIDNamespace runs the binary the way a container or CI runner on the
// same host would: its own PID namespace (unshare, as root), where the other
// run's pid does not exist.
func inNewPIDNamespace(t *testing.T, ctx context.Context, bin string, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skipf("needs unshare and root to make PID namespaces (%v)", err)
	}
	return exec.CommandContext(ctx, "unshare", append([]string{"--pid", "--fork", "--mount-proc", bin}, args...)...)
}

// existingSchemas are the writeamp schemas already there (another test's
// leftovers): waitForSchema looks past them.
func existingSchemas(t *testing.T, db *sql.DB) []string {
	return writeampSchemas(t, db)
}

// noWriteampSessions waits until the server has ended the sessions of
// killed writeamp processes (it notices the closed socket at once, the
// backend exits a moment later).
func noWriteampSessions(t *testing.T, db *sql.DB) {
	for i := 0; i < 100; i++ {
		var n int
		db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = 'writeamp'`).Scan(&n)
		if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	var left []string
	rows, err := db.Query(`SELECT pid || ' ' || datname || ' ' || coalesce(state, '') || ' since ' || backend_start || ': ' || left(query, 120) FROM pg_stat_activity WHERE application_name = 'writeamp'`)
	if err == nil {
		for rows.Next() {
			var s string
			rows.Scan(&s)
			left = append(left, s)
		}
		rows.Close()
	}
	t.Fatalf("the killed run's sessions are still there after 5 s: %q", left)
}

func openTestPG(t *testing.T) (string, *sql.DB) {
	t.Helper()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	testenv.Reachable(t, db, "PostgreSQL")
	return dsn, db
}

// waitForSchema waits until a run's schema exists with its marker written.
func waitForSchema(t *testing.T, db *sql.DB, except ...string) string {
	t.Helper()
	except = append([]string{}, except...) // never NULL: ANY(NULL) matches nothing
	for i := 0; i < 300; i++ {
		var n string
		err := db.QueryRow(`SELECT n.nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid
			WHERE n.nspname LIKE 'writeamp\_rt\_%' AND c.relname = 'offline_client_session' AND NOT (n.nspname = ANY($1::text[])) LIMIT 1`, except).Scan(&n)
		if err == nil {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no run's schema appeared within 30 s")
	return ""
}

func schemaExists(t *testing.T, db *sql.DB, name string) bool {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A second run in another PID namespace on the same host used to take a
// live run's schema for a crashed one (its pid did not exist there) and drop
// it mid-run. The schema's lock now says it is in use.
func TestALiveRunIsLeftAloneByARunInAnotherPIDNamespace(t *testing.T) {
	t.Parallel()
	dsn, db := openTestPG(t)
	bin := buildBinary(t)
	before := catalogState(t, db)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := exec.CommandContext(ctx, bin, "run", "-q", "--dsn", dsn, "--logins", "200000", "--variants", "baseline")
	var aErr strings.Builder
	a.Stderr = &aErr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Process.Kill()
	live := waitForSchema(t, db, existingSchemas(t, db)...)
	b := inNewPIDNamespace(t, ctx, bin, "run", "--dsn", dsn, "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse")
	out, err := b.CombinedOutput()
	if err != nil {
		t.Fatalf("the second run failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "left alone: "+live+" (in use") {
		t.Errorf("the second run should list the live schema as in use:\n%s", out)
	}
	if !schemaExists(t, db, live) {
		t.Fatalf("the second run dropped the live run's schema %s:\n%s", live, out)
	}
	// The live run is unharmed: interrupted now, it cleans up as usual.
	a.Process.Signal(syscall.SIGINT)
	if err := a.Wait(); exitStatus(err) != exitInterrupted {
		t.Errorf("the first run: exit %d (%v), want 130 after SIGINT; stderr:\n%s", exitStatus(err), err, aErr.String())
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("catalog changed: %s -> %s", before, after)
	}
}

// The reliability test: two runs at once against the same database, each in
// its own PID namespace, both finish with correct numbers (rows as issued;
// WAL-counted leaf inserts = inserts + non-HOT updates, exact) and leave
// nothing behind: no schema, no pg_walinspect (the last run out drops it,
// the first does not pull it from under the other), no CHECKPOINT of one
// removing WAL the other's window still had to read.
func TestTwoConcurrentRunsInDifferentPIDNamespaces(t *testing.T) {
	t.Parallel()
	// A server of its own: two runs of 2,000-3,000 logins held the shared
	// one ~25 s.
	dsn := privateScratchDB(t, "wa_test_pidns")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bin := buildBinary(t)
	before := catalogState(t, db)
	old := existingSchemas(t, db)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type job struct {
		cmd    *exec.Cmd
		out    string
		logins int
		log    strings.Builder
	}
	jobs := []*job{{logins: 3000}, {logins: 2000}}
	for i, j := range jobs {
		j.out = filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		j.cmd = inNewPIDNamespace(t, ctx, bin, "run", "--dsn", dsn, "--logins", strconv.Itoa(j.logins), "--refreshes-per-login", "3", "--expiration-job=false",
			"--format", "json", "-o", j.out)
		j.cmd.Stderr = &j.log
		if err := j.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			waitForSchema(t, db, old...) // overlap for certain: the second starts mid-way through the first
		}
	}
	for i, j := range jobs {
		if err := j.cmd.Wait(); err != nil {
			t.Fatalf("run %d failed: %v\n%s", i, err, j.log.String())
		}
	}
	for i, j := range jobs {
		r, err := result.Read(j.out)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range r.Runs {
			refreshes, logins := int64(3*j.logins), int64(j.logins)
			us := run.Table("offline_user_session")
			var updated float64 // the driver's count: a refresh in the login's second writes nothing
			for _, w := range run.Writes {
				if w.Table == "offline_user_session" && w.Kind == "update" {
					updated += float64(w.Rows)
				}
			}
			if run.Operations["refreshes"] != refreshes || us.Metrics["rows_updated"].V() != updated || updated == 0 || us.Metrics["rows_inserted"].V() != float64(logins) {
				t.Errorf("run %d %s: operations %v, rows_updated %v, rows_inserted %v", i, run.Variant, run.Operations, us.Metrics["rows_updated"].V(), us.Metrics["rows_inserted"].V())
			}
			want := us.Metrics["rows_inserted"].V() + us.Metrics["rows_updated"].V() - us.Metrics["hot_updates"].V()
			for _, name := range []string{"idx_user_session_expiration_last_refresh", "constraint_offl_us_ses_pk2"} {
				li := run.Index(name).Metrics["leaf_inserts"]
				if li.Exactness != result.Exact || li.V() != want {
					t.Errorf("run %d %s %s: leaf inserts %v (%s, %s), want %v exact; missing %v", i, run.Variant, name, li.V(), li.Exactness, li.Note, want, run.Missing)
				}
			}
		}
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("left behind: catalog %s -> %s", before, after)
	}
}

// --keep: the next run used to drop the kept schema as "left by an earlier
// run that did not finish". It is kept, listed by clean, dropped by clean --drop.
func TestAKeptSchemaSurvivesTheNextRun(t *testing.T) {
	t.Parallel()
	dsn, db := openTestPG(t)
	before := catalogState(t, db)
	old := existingSchemas(t, db)
	args := []string{"run", "-q", "--dsn", dsn, "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse"}
	// A process of its own, which has exited when the next run looks.
	if _, stderr, err := runBinary(buildBinary(t), append(args, "--keep")...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	kept := waitForSchema(t, db, old...)
	t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS ` + kept + ` CASCADE`) })
	if _, _, err := run(t, args...); err != nil {
		t.Fatal(err)
	}
	if !schemaExists(t, db, kept) {
		t.Fatalf("the next run dropped %s, kept with --keep", kept)
	}
	// clean exits 1 while it lists what --drop would remove.
	out, _, err := run(t, "clean", "--dsn", dsn)
	if exitCode(err) != 1 || !strings.Contains(out, "kept") || !strings.Contains(out, kept) {
		t.Errorf("clean should list %s as kept: %v\n%s", kept, err, out)
	}
	if !schemaExists(t, db, kept) {
		t.Fatal("clean without --drop dropped something")
	}
	// 0, or 1 for what other tests on this shared server keep meanwhile.
	out, _, err = run(t, "clean", "--dsn", dsn, "--drop", "--schema", kept)
	if exitCode(err) > 1 || schemaExists(t, db, kept) || !strings.Contains(out, "dropped 1 schema") {
		t.Errorf("clean --drop: %v\n%s", err, out)
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("catalog %s -> %s", before, after)
	}
}

// kill -9 mid-run leaves the schema and the pg_walinspect writeamp created;
// later runs saw the extension as the database's own and kept it forever.
// The next run drops both and says so.
func TestTheNextRunFinishesTheCleanupOfAKilledRun(t *testing.T) {
	t.Parallel()
	dsn, db := openTestPG(t)
	var had bool
	db.QueryRow(`SELECT count(*) > 0 FROM pg_extension WHERE extname = 'pg_walinspect'`).Scan(&had)
	if had {
		t.Skip("pg_walinspect is installed on the test server: this test is about the one writeamp created")
	}
	bin := buildBinary(t)
	before := catalogState(t, db)
	old := existingSchemas(t, db)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := exec.CommandContext(ctx, bin, "run", "-q", "--dsn", dsn, "--logins", "200000", "--variants", "baseline")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	left := waitForSchema(t, db, old...)
	time.Sleep(500 * time.Millisecond)
	a.Process.Kill()
	a.Wait()
	noWriteampSessions(t, db)
	if !schemaExists(t, db, left) {
		t.Fatalf("kill -9 should leave the schema %s", left)
	}
	// A superuser's run reads the WAL segments itself and creates no
	// pg_walinspect; a run of an earlier writeamp (or of a login that may
	// create the extension but not read the segments) did, and marked it:
	// the next run drops such a leftover too.
	for _, q := range []string{`CREATE EXTENSION pg_walinspect`, `COMMENT ON EXTENSION pg_walinspect IS 'writeamp: created by writeamp (pid 1 on elsewhere) at 2026-11-30T00:00:00Z'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, err := runBinary(bin, "run", "--dsn", dsn, "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse", "--format", "json", "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"dropped " + left + ", left by an earlier writeamp run that did not finish", "pg_walinspect was left by a writeamp run that did not finish"} {
		if !strings.Contains(notes, want) || !strings.Contains(stderr, strings.SplitN(want, " (", 2)[0]) {
			t.Errorf("the run should say %q; notes:\n%s\nstderr:\n%s", want, notes, stderr)
		}
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("catalog %s -> %s", before, after)
	}
}

func runBinary(bin string, args ...string) (string, string, error) {
	var out, errb strings.Builder
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	return out.String(), errb.String(), err
}

// A server killed mid-run: the README promises a partial result file; the
// run gave none, and did not say the schema was left behind.
func TestServerKilledMidRunGivesAPartialResult(t *testing.T) {
	t.Parallel() // its own throwaway server: alongside the other tests that have one
	if _, err := pgembed.FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bin := buildBinary(t)
	srv, err := pgembed.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	c := exec.Command(bin, "run", "-q", "--dsn", srv.DSN(), "--logins", "200000", "--variants", "baseline,coarse", "--format", "json", "-o", out)
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	schema := waitForSchema(t, db)
	// Killed once the workload has committed logins, not a fixed second
	// after the schema appears: on a loaded machine that second once
	// passed before the first operation ended. The planner-statistics seed
	// of Prepare (rt_seed_stats) fills the table for a moment too, so its
	// rows do not count: a kill then is a failed prepare, with no run.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		db.QueryRow(`SELECT count(*) FROM ` + schema + `.offline_user_session WHERE user_id NOT LIKE 'seed-user-%'`).Scan(&n)
		if n >= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no login committed in 60 s: %s", stderr.String())
		}
	}
	pidText, err := os.ReadFile(filepath.Join(srv.Dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(pidText), "\n", 2)[0])
	syscall.Kill(-pid, syscall.SIGKILL) // the postmaster and its backends
	err = c.Wait()
	if exitStatus(err) != exitFailed {
		t.Errorf("exit %d, want %d (could not complete)", exitStatus(err), exitFailed)
	}
	if !strings.Contains(stderr.String(), schema+" was left behind") {
		t.Errorf("the error should name the schema left behind (%s):\n%s", schema, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no partial result file: %v\n%s", err, stderr.String())
	}
	var r result.Result
	json.Unmarshal(data, &r)
	if len(r.Runs) != 1 || !r.Runs[0].Partial || r.Runs[0].Operations["logins"] == 0 {
		t.Errorf("want one partial run with the operations done: %+v", r.Runs)
	}
}

// A pg_walinspect the database had before is the database's: no run drops
// it, alone or with another run.
func TestAPreexistingWalinspectIsNeverDropped(t *testing.T) {
	t.Parallel()
	dsn, db := openTestPG(t)
	var had bool
	db.QueryRow(`SELECT count(*) > 0 FROM pg_extension WHERE extname = 'pg_walinspect'`).Scan(&had)
	if !had {
		if _, err := db.Exec(`CREATE EXTENSION pg_walinspect`); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Exec(`DROP EXTENSION IF EXISTS pg_walinspect`) })
	}
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse"); err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM pg_extension WHERE extname = 'pg_walinspect'`).Scan(&n)
	if n != 1 {
		t.Error("the database's own pg_walinspect was dropped")
	}
}
