package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	// The registration line a second built-in workload adds to workloads.go:
	// the demo workload (internal/testing/workloadtest/demo, only linked into tests)
	// touches nothing else, and `run` discovers its command and flags.
	_ "github.com/writeamp/writeamp/internal/testing/workloadtest/demo"
	"github.com/writeamp/writeamp/result"
)

// TestASecondWorkloadIsItsPackageAndOneLine runs the demo workload through
// `writeamp run demo` with its own flags: the generic runner drives its
// operations over three workers, the window measures them, the owned-schema
// lifecycle creates, keeps and cleans its schemas, and the numbers are the
// truth the test knows (every update of the indexed variant is non-HOT and
// adds one entry to the index on v; the plain variant's all stay HOT).
func TestASecondWorkloadIsItsPackageAndOneLine(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	stdout, _, err := run(t, "run", "--help")
	if err != nil || !strings.Contains(stdout, "demo") {
		t.Fatalf("run --help does not list the demo workload (%v):\n%s", err, stdout)
	}
	if _, _, err := run(t, "run", "demo", "--dsn", dsn, "--rows", "0"); err == nil || !strings.Contains(err.Error(), "--rows") {
		t.Fatalf("the workload's own validation is not applied: %v", err)
	}
	out := filepath.Join(t.TempDir(), "demo.json")
	const updates = 300
	if _, _, err := run(t, "run", "demo", "-q", "--dsn", dsn, "--rows", "50", "--updates", "300", "--concurrency", "3",
		"--keep", "--format", "json", "-o", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Workload.Name != "demo" || r.Workload.Params["rows"] != float64(50) || r.Workload.Params["concurrency"] != float64(3) || len(r.Runs) != 2 {
		t.Fatalf("workload %+v, %d runs", r.Workload, len(r.Runs))
	}
	for _, run := range r.Runs {
		tbl := run.Table("counter")
		if run.Operations["updates"] != updates || tbl == nil || tbl.Metrics["rows_updated"].V() != updates || tbl.Metrics["rows_updated"].Exactness != result.Exact {
			t.Fatalf("%s: operations %v, table %+v", run.Variant, run.Operations, tbl)
		}
		hot := tbl.Metrics["hot_updates"].V()
		switch run.Variant {
		case "indexed":
			li := run.Index("counter_v").Metrics["leaf_inserts"]
			if hot != 0 || li.V() != updates || li.Exactness != result.Exact {
				t.Errorf("indexed: hot %v, counter_v leaf inserts %+v; want 0 and %d exact", hot, li, updates)
			}
		case "plain":
			// No index covers v, so only a page without room (pruning
			// held back by a concurrent snapshot) can make one non-HOT.
			if moved := tbl.Metrics["newpage_updates"].V(); hot+moved != updates {
				t.Errorf("plain: %v of %d updates HOT, %v moved to another page", hot, updates, moved)
			}
		}
	}
	// --keep kept both schemas, marked; clean finds them by the workload's
	// prefix and drops them.
	// clean exits 1 while it lists what --drop would remove; after --drop,
	// 0, or 1 for what other tests on this shared server keep meanwhile.
	stdout, _, err = run(t, "clean", "--dsn", dsn)
	// At least its own two: another run's kept schemas may sit on this
	// shared server too.
	if exitCode(err) != 1 || strings.Count(stdout, "writeamp_demo_") < 2 || !strings.Contains(stdout, "kept") {
		t.Fatalf("clean does not list the kept demo schemas (%v):\n%s", err, stdout)
	}
	if stdout, _, err = run(t, "clean", "--dsn", dsn, "--drop"); exitCode(err) > 1 || !strings.Contains(stdout, "dropped ") {
		t.Fatalf("clean --drop (%v):\n%s", err, stdout)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'writeamp\_demo\_%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d demo schemas left (%v)", n, err)
	}
}
