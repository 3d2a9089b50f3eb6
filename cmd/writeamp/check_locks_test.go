package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A session that holds a lock the migration needs (an open transaction
// that wrote the table) made check wait forever: PostgreSQL has no lock
// timeout by default, MySQL/MariaDB wait a year. With --lock-timeout the
// migration gives up, the error names the blocking session, nothing stays
// applied and the user's table keeps its rows.
func TestCheckLockTimeoutNamesTheBlockerOnPostgres(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_locks")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table jobs (id int primary key, v int); insert into jobs select g, 0 from generate_series(1, 500) g"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var pid string
	if err := holder.QueryRowContext(ctx, "select pg_backend_pid()::text").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("update jobs set v = 1 where id = 1"); err != nil { // RowExclusiveLock: CREATE INDEX waits
		t.Fatal(err)
	}
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_v on jobs (v);\n")
	t0 := time.Now()
	_, _, err = run(t, "check", "--in-place", "-q", "--dsn", dsn, "--lock-timeout", "2s", "--migration", mig, "--budget", "log_bytes/op<=+1000%",
		"--", psql, dsn, "-Xq", "-c", "update jobs set v = v + 1 where id > 10")
	took := time.Since(t0)
	tx.Rollback()
	if exitCode(err) != 2 {
		t.Fatalf("exit %d (%v), want 2", exitCode(err), err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"--lock-timeout 2s", "blocked by session " + pid, "update jobs set v = 1 where id = 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if took > 90*time.Second {
		t.Errorf("check took %v with --lock-timeout 2s", took)
	}
	var n, idx int
	db.QueryRow("select count(*) from jobs").Scan(&n)
	db.QueryRow("select count(*) from pg_indexes where indexname = 'jobs_v'").Scan(&idx)
	if n != 500 || idx != 0 {
		t.Errorf("after the timeout: %d rows (want 500), index jobs_v present %d", n, idx)
	}
}

func TestCheckLockTimeoutOnMariaDB(t *testing.T) {
	t.Parallel()
	client := testenv.Tool(t, "mariadb", "mysql")
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 0 FROM seq_1_to_500")
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var id string
	holder.QueryRowContext(ctx, "SELECT CAST(CONNECTION_ID() AS CHAR)").Scan(&id)
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE " + name + ".jobs SET v = 1 WHERE id = 1"); err != nil { // a metadata lock ALTER waits for
		t.Fatal(err)
	}
	dsn := mariaDSN(t, name)
	mig := write(t, t.TempDir(), "m.sql", "alter table jobs add column note varchar(20);\n")
	u := strings.TrimPrefix(dsn, "mysql://")
	userHost, _, _ := strings.Cut(u, "/")
	user, hostPort, _ := strings.Cut(userHost, "@")
	host, port, _ := strings.Cut(hostPort, ":")
	t0 := time.Now()
	_, _, err = run(t, "check", "--in-place", "-q", "--dsn", dsn, "--lock-timeout", "2s", "--migration", mig, "--budget", "log_bytes/op<=+1000%",
		"--", client, "-u"+user, "-h"+host, "-P"+port, name, "-e", "update jobs set v = v + 1 where id > 10")
	took := time.Since(t0)
	tx.Rollback()
	if exitCode(err) != 2 {
		t.Fatalf("exit %d (%v), want 2", exitCode(err), err)
	}
	for _, want := range []string{"--lock-timeout 2s", "session " + id} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%s", want, err)
		}
	}
	if took > 90*time.Second {
		t.Errorf("check took %v with --lock-timeout 2s", took)
	}
	var cols, n int
	db.QueryRow("SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = 'jobs' AND column_name = 'note'", name).Scan(&cols)
	db.QueryRow("SELECT COUNT(*) FROM " + name + ".jobs").Scan(&n)
	if cols != 0 || n != 500 {
		t.Errorf("after the timeout: column note present %d, %d rows (want 500)", cols, n)
	}
}

func TestLockTimeoutMustNotBeNegative(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, "check", "--dsn", closedPG, "--lock-timeout", "-1s", "--migration", write(t, t.TempDir(), "m.sql", "select 1;"), "--", "true")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--lock-timeout") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}
