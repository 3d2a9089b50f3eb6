package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// shippedVariantFile is the example the README documents.
const shippedVariantFile = "../workloads/refreshtoken/client-timestamp-variant.yaml"

// sideBySide runs baseline, coarse and the shipped variant file's variant
// with the expiration job and checks each run: no errors, the job deleted
// exactly the sessions that did not log out (the plan's own count, as the
// workload's model is not asked), and the job's window has a log figure
// that is plausible for that many deletes: at least a 50-byte DELETE record
// per row of the two tables, at most 16 kB per session.
func sideBySide(t *testing.T, db *sql.DB, s dialects.Server) {
	p := refreshtoken.DefaultParams()
	p.Logins, p.VariantFile = 200, shippedVariantFile
	w := refreshtoken.New(p)
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	variants := w.Meta().Variants
	if len(variants) != 3 || variants[2] != "no_client_ts" {
		t.Fatalf("variants %v", variants)
	}
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: w, Variants: variants}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	if cp := res.Server.Settings["checkpoint_timeout"]; (cp != "") != (s.Dialect == "postgres") {
		t.Errorf("server.settings checkpoint_timeout %q on %s: recorded on PostgreSQL only", cp, s.Dialect)
	}
	plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, p.LogoutPercent, p.Seed)
	want := float64(p.Logins - plan.Logouts())
	for i, run := range res.Runs {
		if run.Variant != variants[i] || len(run.Errors) > 0 || run.Operations["logins"] != int64(p.Logins) {
			t.Fatalf("run %d: %s, operations %v, errors %v", i, run.Variant, run.Operations, run.Errors)
		}
		del := run.Database[result.ExpirationJobSessionsDeleted.Name]
		if !del.OK() || del.V() != want {
			t.Errorf("%s: %s %v (%s), want %v", run.Variant, result.ExpirationJobSessionsDeleted.Name, del.V(), del.Note, want)
		}
		lb := run.Database[result.ExpirationJobLogBytes.Name]
		if !lb.OK() || lb.V() < 2*want*50 || lb.V() > want*16384 {
			t.Errorf("%s: %s %v (%s %s), want between %v and %v", run.Variant, result.ExpirationJobLogBytes.Name, lb.V(), lb.Exactness, lb.Note, 2*want*50, want*16384)
		}
		per := run.Database[result.ExpirationJobLogBytesPerSession.Name]
		rows := jobRowsDeleted(t, &res.Runs[i], s.Dialect, want)
		t.Logf("%s: job runs %v, sessions deleted %v, log bytes %v (%s), %.0f B per session, rows deleted %v (%s: %s; %s); client-session updates %v",
			run.Variant, run.Database[result.ExpirationJobRuns.Name].V(), del.V(), lb.V(), lb.Exactness, per.V(), rows.V(), rows.Exactness, rows.Source, rows.Note,
			metric(t, run.Table("offline_client_session"), "rows_updated").V())
	}
	// The variant drops the refresh's client-session update: coarse keeps it.
	if c, v := metric(t, res.Runs[1].Table("offline_client_session"), "rows_updated").V(), metric(t, res.Runs[2].Table("offline_client_session"), "rows_updated").V(); c == 0 || v != 0 {
		t.Errorf("client-session updates: coarse %v, no_client_ts %v", c, v)
	}
}

// jobRowsDeleted holds the job window's rows deleted to what its DELETEs
// did: each table's figure is the sessions deleted (one client session per
// user session), exact (InnoDB: derived from the statements); the database's is both tables' rows, present on
// every dialect (PostgreSQL has no database-wide counter: a missing figure
// read as 0 was the bug). There it is the tables' sum and must equal the
// driver's count; MariaDB's Innodb_rows_deleted is server-wide, so another
// session deleting rows meanwhile may make it approx, its note naming the
// driver's count.
func jobRowsDeleted(t *testing.T, run *result.Run, dialect string, sessions float64) result.Metric {
	t.Helper()
	for _, tb := range []string{"offline_user_session", "offline_client_session"} {
		if m := metric(t, run.Table(tb), result.ExpirationJobRowsDeleted.Name); m.V() != sessions || (m.Exactness != result.Exact && m.Exactness != result.Derived) {
			t.Errorf("%s: %s %s %v (%s, %s), want %v exact (derived from the statements on InnoDB)", run.Variant, tb, result.ExpirationJobRowsDeleted.Name, m.V(), m.Exactness, m.Note, sessions)
		}
	}
	rows, want := run.Database[result.ExpirationJobRowsDeleted.Name], 2*sessions
	exact := rows.Exactness == result.Exact || rows.Exactness == result.Derived
	switch {
	case !rows.OK():
		t.Errorf("%s: database %s missing or unavailable (%s), want %v", run.Variant, result.ExpirationJobRowsDeleted.Name, rows.Note, want)
	case dialect == "postgres" && (rows.V() != want || rows.Exactness != result.Derived):
		t.Errorf("%s: database %s %v (%s, %s), want %v derived", run.Variant, result.ExpirationJobRowsDeleted.Name, rows.V(), rows.Exactness, rows.Note, want)
	case exact && rows.V() != want:
		t.Errorf("%s: database %s %v %s, want %v", run.Variant, result.ExpirationJobRowsDeleted.Name, rows.V(), rows.Exactness, want)
	case !exact && !strings.Contains(rows.Note, fmt.Sprintf("changed %.0f rows (the driver's count)", want)):
		t.Errorf("%s: database %s %v %s without the driver's %v in its note: %s", run.Variant, result.ExpirationJobRowsDeleted.Name, rows.V(), rows.Exactness, want, rows.Note)
	}
	return rows
}

func TestShippedVariantFileBesideBuiltInsOnPostgres(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	sideBySide(t, db, s)
}

func TestShippedVariantFileBesideBuiltInsOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	sideBySide(t, db, s)
}
