package testenv

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver awaitQuiet reads the shared PostgreSQL with
)

// awaitQuiet waits, up to a minute, until no other session of the shared
// PostgreSQL holds a snapshot or a transaction: a test's process may end
// while its backend still runs (a pg_sleep whose client was killed runs on
// until it ends), and a snapshot held back the pruning of the next test's
// tables (coarse was 686 of 800 HOT once). The lock keeps other tests out;
// this waits out what the earlier ones left running.
func awaitQuiet(t testing.TB, envVar, dsn string) {
	t.Helper()
	if !strings.Contains(envVar, "_PG_") {
		return
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return // the test's own connection says what is wrong with dsn
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	var n int
	var who string
	for {
		err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(string_agg(pid || ' ' || coalesce(application_name, '') || ': ' || left(query, 60), '; '), '')
			FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
			  AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)`).Scan(&n, &who)
		if err != nil || n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Logf("after %s, %d other session(s) of the shared PostgreSQL still hold a snapshot (this test's pruning may be held back): %s", time.Since(t0).Round(time.Second), n, who)
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}
