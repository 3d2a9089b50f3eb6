package postgres

import (
	"errors"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// A collector whose query has no block for the server's version records a
// Missing naming the block, and the snapshot goes on with the others: the
// lookup used to panic (queries.MustGet) and end the whole run. pg_stat_io
// is gated at 16 in its block header; a server that claims the capability
// on 15 reaches the lookup, which then has nothing to send.
func TestMissingBlockIsAMissingNotAPanic(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	s := server(150000)
	s.Set(pg.CapStatIO, true, "")
	if _, err := queries.Get(pg.Name, "pg_stat_io", s.VersionNum); err == nil {
		t.Fatal("pg_stat_io has a block for 15: the test needs a version without one")
	}
	set := &collectors.Set{Sources: []collectors.Source{PgStatIO{}, PgStatDatabase{}}, Savepoint: "SAVEPOINT w", RollbackTo: "ROLLBACK TO SAVEPOINT w"}
	mock.ExpectBegin()
	mock.ExpectExec("SAVEPOINT w").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec("ROLLBACK TO SAVEPOINT w").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec("SAVEPOINT w").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_stat_database", s.VersionNum)).WillReturnRows(
		mock.NewRows([]string{"xact_commit", "xact_rollback", "deadlocks", "temp_bytes", "stats_reset"}).AddRow(int64(12), int64(1), int64(0), int64(0), "2026-12-01 00:00:00+00"))
	mock.ExpectRollback()

	snap, err := set.Take(t.Context(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Missing) != 1 || snap.Missing[0].Collector != "pg_stat_io" ||
		snap.Missing[0].Reason != `queries: block "pg_stat_io" for postgres has no variant for version 150000` {
		t.Fatalf("missing = %+v", snap.Missing)
	}
	if got := byKey(snap.Counters)[collectors.NewKey(collectors.DB, "", result.TransactionsCommitted).String()].Value; got != 12 {
		t.Errorf("the collector after the missing one read xact_commit %v, want 12 (counters %+v)", got, snap.Counters)
	}
	var me *queries.MissingError
	if _, err := (PgStatIO{}).Collect(t.Context(), db, s, collectors.Scope{}); !errors.As(err, &me) || me.Name != "pg_stat_io" || me.Version != 150000 {
		t.Errorf("Collect's error %v is not the lookup's *queries.MissingError", err)
	}
}
