package measure_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// TestLeftoversOfDeadRunsAreDroppedOthersUntouched plays a crashed run: a
// schema whose lock is free is dropped, whatever host or pid its marker
// names; one whose lock another session holds (a live run, here in this
// very process, which the old pid check could not tell from a dead one in
// another PID namespace), one kept with --keep, one from a writeamp without
// locks and one without a marker are left alone.
func TestLeftoversOfDeadRunsAreDroppedOthersUntouched(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	host, _ := os.Hostname()
	dead, live, kept, old, alien := "writeamp_rt_deadbeef_baseline", "writeamp_rt_11fe0000_baseline", "writeamp_rt_4ee90000_coarse",
		"writeamp_rt_01d00000_baseline", "writeamp_rt_notours_baseline"
	all := []string{dead, live, kept, old, alien}
	for _, n := range all {
		mustExec(t, db, `DROP SCHEMA IF EXISTS `+n+` CASCADE`)
		mustExec(t, db, `CREATE SCHEMA `+n)
	}
	t.Cleanup(func() {
		for _, n := range all {
			db.Exec(`DROP SCHEMA IF EXISTS ` + n + ` CASCADE`)
		}
	})
	marker := func(n string, pid int, kept int) {
		mustExec(t, db, `CREATE TABLE `+n+`.writeamp_owner (run_id varchar(64), pid int, host varchar(255), started varchar(64), lock_kind varchar(16), kept int)`)
		mustExec(t, db, `INSERT INTO `+n+`.writeamp_owner VALUES ('r', $1, $2, 'then', 'session', $3)`, pid, host, kept)
	}
	// pid 2^22+ is above Linux's default pid_max: never a live process.
	marker(dead, 4194999, 0)
	marker(live, 4194998, 0) // a process that looks dead: its lock says otherwise
	marker(kept, 4194997, 1)
	mustExec(t, db, `CREATE TABLE `+old+`.writeamp_owner (run_id varchar(64), pid int, host varchar(255), started varchar(64))`)
	mustExec(t, db, `INSERT INTO `+old+`.writeamp_owner VALUES ('r', 4194996, $1, 'then')`, host)
	mustExec(t, db, `CREATE TABLE `+alien+`.precious (id int)`)
	holder, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var got bool
	if err := holder.QueryRowContext(context.Background(), `SELECT pg_try_advisory_lock(hashtextextended('writeamp:'||$1, 0))`, live).Scan(&got); err != nil || !got {
		t.Fatalf("hold the live run's lock: %v %v", got, err)
	}
	defer holder.ExecContext(context.Background(), `SELECT pg_advisory_unlock_all()`)

	w := refreshtoken.New(smallParams())
	dropped, left, err := w.CleanLeftovers(context.Background(), window(t, db, s).Target)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0] != dead {
		t.Errorf("dropped %v, want only %s", dropped, dead)
	}
	if len(schemasLike(t, db, dead)) != 0 {
		t.Error("the dead run's schema is still there")
	}
	for _, n := range []string{live, kept, old, alien} {
		if len(schemasLike(t, db, n)) != 1 {
			t.Errorf("%s was touched", n)
		}
	}
	text := strings.Join(left, "\n")
	for _, want := range []string{live + " (in use", kept + " (kept", old + " (unlocked", alien + " (not ours"} {
		if !strings.Contains(text, want) {
			t.Errorf("left alone %v should list %q", left, want)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + alien + `.precious`).Scan(&n); err != nil {
		t.Errorf("the unmarked schema's table is gone: %v", err)
	}
}

// A session killed while it prepares the schema: the drop on that session
// cannot run, so Prepare drops the schema on a new one instead of leaving it.
func TestPrepareOnAKilledSessionLeavesNoSchema(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	w := refreshtoken.New(smallParams())
	w.AfterPrepare = func(ctx context.Context, conn *sql.Conn, schema string) error {
		_, err := conn.ExecContext(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
		if err == nil {
			err = errors.New("the session survived its own termination")
		}
		return err
	}
	err := w.Prepare(context.Background(), window(t, db, s).Target, "coarse")
	if err == nil || !strings.Contains(err.Error(), "dropped on a new connection") {
		t.Errorf("Prepare: %v", err)
	}
	if left := schemasLike(t, db, "writeamp_rt_"+w.Owned.RunID+"%"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
