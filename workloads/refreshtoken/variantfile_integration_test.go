package refreshtoken_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// A variant file's variant on a real server: its appended DDL exists, its
// replaced statement runs, the refresh's client-session lock and update are
// gone (VERSION stays 0 on every client session), and its logouts and
// expiration job still delete exactly what they should.
func runFileVariant(t *testing.T, target dialects.Target) {
	ctx := context.Background()
	ph := map[string][]string{"postgres": {"$1", "$2", "$3", "$4", "$5"}, "mysql": {"?", "?", "?", "?", "?"}}[target.Server.Dialect]
	doc := fmt.Sprintf(`name: file_v
base: coarse
ddl_append:
  %[1]s: CREATE INDEX idx_file_v_extra ON {{schema}}.offline_client_session (timestamp)
operations:
  refresh:
    drop: [rt_lock_client_session_skip_locked, rt_update_client_session]
    replace:
      rt_update_user_session:
        columns: [last_session_refresh, version]
        sql:
          %[1]s: "UPDATE {{schema}}.offline_user_session SET last_session_refresh = %[2]s, version = %[3]s WHERE offline_flag = %[4]s AND user_session_id = %[5]s AND version = %[6]s"
`, target.Server.Dialect, ph[0], ph[1], ph[2], ph[3], ph[4])
	path := filepath.Join(t.TempDir(), "v.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.VariantFile = 100, 20, time.Minute, path
	w := refreshtoken.New(p)
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(ctx, target, "file_v"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Cleanup(ctx, target); err != nil {
			t.Error(err)
		}
	}()
	catalog := map[string]string{"postgres": "SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'idx_file_v_extra'",
		"mysql": "SELECT count(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND INDEX_NAME = 'idx_file_v_extra'"}[target.Server.Dialect]
	var extra int
	if err := target.DB.QueryRowContext(ctx, catalog, w.Schema()).Scan(&extra); err != nil || extra != 1 {
		t.Errorf("the variant's appended index: %d (%v)", extra, err)
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	st, err := workloads.Runner{Target: target, Concurrency: 1}.Run(ctx, ops)
	if err != nil || len(st.Errors) > 0 {
		t.Fatalf("scenario: %v %v", err, st.Errors)
	}
	if st.Statements["rt_update_client_session"] != 0 || st.Statements["rt_update_user_session"] == 0 {
		t.Errorf("statements %v: the variant drops the client-session update and keeps the user session's", st.Statements)
	}
	var touched int
	q := fmt.Sprintf("SELECT count(*) FROM %s.offline_client_session WHERE version <> 0", w.Schema())
	if err := target.DB.QueryRowContext(ctx, q).Scan(&touched); err != nil || touched != 0 {
		t.Errorf("%d client sessions were updated (%v)", touched, err)
	}
	var ix int
	q = fmt.Sprintf("SELECT count(*) FROM %s.offline_client_session WHERE timestamp >= 0", w.Schema())
	if err := target.DB.QueryRowContext(ctx, q).Scan(&ix); err != nil || ix == 0 {
		t.Errorf("client sessions: %d (%v)", ix, err)
	}
	ep, err := w.Epilogue()
	if err != nil {
		t.Fatal(err)
	}
	js, err := workloads.Runner{Target: target, Concurrency: 1}.Run(ctx, ep.Ops)
	plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, p.LogoutPercent, p.Seed)
	if err != nil || len(js.Errors) > 0 || js.Statements["rt_expire_delete_user_sessions"] != int64(p.Logins-plan.Logouts()) {
		t.Errorf("expiration job: %v %v %v", err, js.Errors, js.Statements)
	}
}

func TestVariantFileOnPostgres(t *testing.T) {
	t.Parallel()
	target := pgTarget(t)
	runFileVariant(t, target)
	var n int
	if err := target.DB.QueryRow(`SELECT count(*) FROM pg_indexes WHERE indexname = 'idx_file_v_extra'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the variant's schema was not dropped: %d (%v)", n, err)
	}
}

func TestVariantFileOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	runFileVariant(t, dialects.Target{DB: db, Dialect: mysql.Dialect{}, Server: s})
}
