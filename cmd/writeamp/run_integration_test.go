package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/result"
)

func TestRunWritesAResultFileWithBothVariants(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	// A first refresh a second after the login writes like the others, so
	// every refresh updates; the 26.8 choices reach the DDL and the header.
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "40", "--refreshes-per-login", "3", "--first-refresh-after", "1s",
		"--bucket-position", "leading", "--bucket-function", "java-hash", "--css-user-session-index", "keep", "--format", "json", "--output", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 2 || r.Runs[0].Variant != "baseline" || r.Runs[1].Variant != "coarse" {
		t.Fatalf("runs %+v", r.Runs)
	}
	for _, run := range r.Runs {
		if run.Operations["refreshes"] != 120 || run.Table("offline_user_session").Metrics["rows_updated"].V() != 120 {
			t.Errorf("%s: %v", run.Variant, run.Operations)
		}
	}
	if c := r.Runs[1]; c.Index("idx_offline_css_by_user_session_and_offline") == nil {
		t.Error("--css-user-session-index keep: the coarse variant lacks the index")
	}
	p := r.Workload.Params
	if p["logins"] != float64(40) || p["first_refresh_after"] != "1s" || p["bucket_position"] != "leading" || p["bucket_function"] != "java-hash" {
		t.Errorf("params %v", p)
	}
	if a := strings.Join(r.Workload.Assumptions, "\n"); !strings.Contains(a, "leading key column") || !strings.Contains(a, "hashCode") || !strings.Contains(a, "keeps IDX_OFFLINE_CSS") {
		t.Errorf("assumptions do not follow the flags:\n%s", a)
	}
}

func TestRunWithoutDSNUsesAThrowawayServer(t *testing.T) {
	testenv.Heavy(t, "starts a PostgreSQL server of its own")
	if _, err := pgembed.FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, v := range append(pgEnv, "WRITEAMP_DSN", "DATABASE_URL") {
		t.Setenv(v, "")
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse", "--format", "json", "-o", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	li := r.Runs[0].Index("idx_user_session_expiration_last_refresh").Metrics["leaf_inserts"]
	// The throwaway server is a superuser's: pg_walinspect gives exact figures.
	if li.Exactness != result.Exact || li.V() < 20 {
		t.Errorf("leaf inserts %+v", li)
	}
}
