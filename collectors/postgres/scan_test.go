package postgres

import (
	"context"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// The rows below are typed as pgx returns these queries' columns: the
// checkpoint count is bigint (int64), stats_reset is cast to text, the LSN
// and its byte position are text (pg_lsn::text, numeric::text), the
// transaction counters bigint.

func pgServer(v int) dialects.Server {
	s := dialects.Server{Dialect: pg.Name, VersionNum: v, Version: "test"}
	s.Set(pg.CapPrimary, true, "")
	return s
}

// Each major reads its checkpoint count where it lives and says how exact
// it is, as the block's headers say (15: pg_stat_bgwriter, approx; 17:
// pg_stat_checkpointer timed + requested, approx; 18: num_done, exact).
func TestPgStatCheckpointerScanByVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v      int
		source string
		e      result.Exactness
	}{
		{150020, "pg_stat_bgwriter.checkpoints_timed + checkpoints_req", result.Approx},
		{170006, "pg_stat_checkpointer.num_timed + num_requested", result.Approx},
		{180001, "pg_stat_checkpointer.num_done", result.Exact},
	} {
		db, m := mocksql.New(t)
		text, err := queries.Get(pg.Name, "pg_stat_checkpointer", tc.v)
		if err != nil {
			t.Fatal(err)
		}
		m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"n", "coalesce"}).AddRow(int64(7), "2026-11-30 10:00:00.123+00"))
		cs, err := PgStatCheckpointer{}.Collect(context.Background(), db, pgServer(tc.v), collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 || cs[0].Metric != result.Checkpoints.Name || cs[0].Value != 7 || cs[0].Source != tc.source ||
			cs[0].Exactness != tc.e || cs[0].Reset != "2026-11-30 10:00:00.123+00" {
			t.Errorf("%d: %+v", tc.v, cs)
		}
		if (tc.e == result.Approx) != (cs[0].Note != "") {
			t.Errorf("%d: an approx count says why (note %q)", tc.v, cs[0].Note)
		}
	}
}

func TestPgStatDatabaseScan(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	text, _ := queries.Get(pg.Name, "pg_stat_database", 150020)
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"xact_commit", "xact_rollback", "deadlocks", "coalesce"}).AddRow(int64(1502), int64(3), int64(0), ""))
	cs, err := PgStatDatabase{}.Collect(context.Background(), db, pgServer(150020), collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, c := range cs {
		got[c.Metric] = c.Value
		if c.Reset != "never" { // 15+ with no reset: never reset
			t.Errorf("%s reset %q", c.Metric, c.Reset)
		}
	}
	if got[result.TransactionsCommitted.Name] != 1502 || got[result.TransactionsRolledBack.Name] != 3 || got[result.Deadlocks.Name] != 0 || len(cs) != 3 {
		t.Errorf("%+v", cs)
	}
}

func TestWalLSNScan(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	text, _ := queries.Get(pg.Name, "wal_lsn", 150020)
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"pg_current_wal_insert_lsn", "pg_wal_lsn_diff"}).AddRow("0/1A2B3C4", "27439044"))
	marks, err := WalLSN{}.Marks(context.Background(), db, pgServer(150020))
	if err != nil || marks[MarkLSN] != "0/1A2B3C4" {
		t.Errorf("marks %v, %v", marks, err)
	}
}
