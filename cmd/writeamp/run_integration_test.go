package main

import (
	"path/filepath"
	"testing"

	"github.com/writeamp/writeamp/internal/testenv"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/result"
)

func TestRunWritesAResultFileWithBothVariants(t *testing.T) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "40", "--refreshes-per-login", "3", "--format", "json", "--output", out); err != nil {
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
	if r.Workload.Params["logins"] != float64(40) {
		t.Errorf("params %v", r.Workload.Params)
	}
}

func TestRunWithoutDSNUsesAThrowawayServer(t *testing.T) {
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
