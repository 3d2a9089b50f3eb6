package postgres

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// liveServer opens WRITEAMP_TEST_PG_DSN, closed when the test ends, and probes it.
func liveServer(t *testing.T) (string, *sql.DB, dialects.Server) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	testenv.Reachable(t, db, "PostgreSQL")
	s, err := pg.Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, db, s
}

// The sampler sees a known wait: one session holds a row lock, the sampled
// session's UPDATE of the same row waits on its transaction (Lock /
// transactionid) until the holder commits.
func TestSamplerSeesARowLockWait(t *testing.T) {
	t.Parallel()
	dsn, db, s := liveServer(t)
	ctx := context.Background()
	for _, q := range []string{`DROP TABLE IF EXISTS writeamp_lockwait`, `CREATE TABLE writeamp_lockwait (id int PRIMARY KEY, v int)`, `INSERT INTO writeamp_lockwait VALUES (1, 0)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer db.Exec(`DROP TABLE IF EXISTS writeamp_lockwait`)
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(`UPDATE writeamp_lockwait SET v = 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	const app = "writeamp-sampled-test"
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	waiterDB, err := sql.Open("pgx", dsn+sep+"application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	defer waiterDB.Close()
	sampling, err := PgStatActivity{}.Start(ctx, db, s, collectors.SampleTarget{ApplicationName: app, Operation: func(q string) string {
		if strings.Contains(q, "writeamp_lockwait") {
			return "refresh"
		}
		return "other"
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := waiterDB.Exec(`UPDATE writeamp_lockwait SET v = 2 WHERE id = 1`)
		done <- err
	}()
	time.Sleep(400 * time.Millisecond)
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]collectors.Counter{}
	for _, c := range cs {
		got[c.Metric] = c
	}
	// At most 1/collectors.Budget of the time: a 1-4 ms reading every 120-480 ms.
	if n := got["wait_samples"].Value; n < 2 {
		t.Errorf("only %v samples in 400 ms", n)
	}
	lock := got["wait_share.Lock.transactionid"]
	if lock.Value < 0.5 || lock.Exactness != "approx" || !strings.Contains(lock.Source, "samples") {
		t.Errorf("the blocked UPDATE's wait: %+v (all: %v)", lock, cs)
	}
	if got["op_wait_share.refresh.Lock.transactionid"].Value < 0.5 {
		t.Errorf("per operation: %v", cs)
	}
}
