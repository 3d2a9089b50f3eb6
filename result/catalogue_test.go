package result

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// catalogueIdents maps each metric's exported value (LeafInserts) to its
// name, read from metrics.go and the metrics_*.go files beside it.
func catalogueIdents(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("metrics*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no metrics files: %v", err)
	}
	out := map[string]string{}
	for _, file := range files {
		if !strings.HasSuffix(file, "_test.go") {
			metricIdents(t, file, out)
		}
	}
	return out
}

func metricIdents(t *testing.T, file string, out map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
			return true
		}
		call, ok := vs.Values[0].(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		lit, ok := call.Args[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" {
				out[vs.Names[0].Name] = strings.Trim(kv.Value.(*ast.BasicLit).Value, `"`)
			}
		}
		return true
	})
}

// Every catalogue metric is emitted by some collector or deriver (a name
// nobody writes is a budget that can never be evaluated). That they write
// only catalogue names, at a level the catalogue lists, the compiler and
// TestCatalogueCoversRealResults see.
func TestEveryMetricIsWritten(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "collectors", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no collector sources: %v", err)
	}
	files = append(files, filepath.Join("..", "collectors", "waitshare.go"))
	// The statements' reconciliation and check's migration window write
	// database metrics of their own.
	files = append(files, filepath.Join("..", "measure", "statements.go"), filepath.Join("..", "measure", "opcosts.go"), filepath.Join("..", "measure", "warmrounds.go"), filepath.Join("..", "check", "applycost.go"))
	// Budgets derive a table's index_entries from its indexes' leaf inserts.
	files = append(files, filepath.Join("..", "budget", "derived.go"))
	// The refresh-token workload names its own figures and its expiration
	// job's window figures.
	files = append(files, filepath.Join("..", "workloads", "refreshtoken", "crossings.go"), filepath.Join("..", "workloads", "refreshtoken", "job.go"), filepath.Join("..", "workloads", "refreshtoken", "claims_cleanup.go"))
	var all strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(src)
	}
	idents := catalogueIdents(t)
	if len(idents) != len(Catalogue()) {
		t.Fatalf("metrics*.go declare %d values, the catalogue holds %d", len(idents), len(Catalogue()))
	}
	// One pass over the sources for every result.X they name (a pattern
	// per identifier read the sources again for each).
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bresult\.([A-Za-z_][A-Za-z0-9_]*)\b`).FindAllStringSubmatch(all.String(), -1) {
		named[m[1]] = true
	}
	for id, name := range idents {
		if !named[id] {
			t.Errorf("no collector emits %s (result.%s)", name, id)
		}
	}
}

// The metrics of real results (a PostgreSQL run, a MariaDB measure) are in
// the catalogue at the level they are kept.
func TestCatalogueCoversRealResults(t *testing.T) {
	for _, f := range []string{"refresh_token_pg15.json", "measure_mariadb.json"} {
		r, err := Read(filepath.Join("..", "reports", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		check := func(level Level, ms map[string]Metric, where string) {
			for name := range ms {
				info, ok := Lookup(name)
				if !ok || !info.At(level) {
					t.Errorf("%s: %s metric %s of %s: catalogue has %v (known %v)", f, level, name, where, info.Levels, ok)
				}
			}
		}
		for _, run := range r.Runs {
			check(LevelDatabase, run.Database, "the database")
			for _, o := range run.Tables {
				check(LevelTable, o.Metrics, o.Name)
			}
			for _, o := range run.Indexes {
				check(LevelIndex, o.Metrics, o.Name)
			}
		}
	}
}

// The counters collectors mark as gauges (they may fall) are the ones the
// catalogue lets be negative, so Validate and the snapshot diff agree.
func TestCatalogueGaugesMatchTheCollectors(t *testing.T) {
	gaugeFile := map[string][]string{
		filepath.Join("..", "collectors", "postgres", "pg_class.go"):          {"size_bytes"},
		filepath.Join("..", "collectors", "mysql", "innodb_index_stats.go"):   {"leaf_pages", "size_pages"},
		filepath.Join("..", "collectors", "mysql", "innodb_change_buffer.go"): {"ibuf_size_pages"},
	}
	var gauges []string
	for f, names := range gaugeFile {
		src, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(src), "Gauge = true") {
			t.Fatalf("%s no longer marks a gauge (%v): update this test", f, err)
		}
		for _, n := range names {
			if !strings.Contains(string(src), "result."+identOf(n)) {
				t.Errorf("%s does not write %s", f, n)
			}
		}
		gauges = append(gauges, names...)
	}
	// A migration that drops an index adds a negative size.
	gauges = append(gauges, "size_added_bytes")
	for _, i := range Catalogue() {
		if i.Negative != slices.Contains(gauges, i.Name) {
			t.Errorf("%s: catalogue says negative=%v, the collectors' gauges are %v", i.Name, i.Negative, gauges)
		}
	}
}

func TestLookup(t *testing.T) {
	if i, ok := Lookup("log_bytes_in_scope"); !ok || !i.IsBytes() || i.Label != "  of which the workload's objects" {
		t.Errorf("log_bytes_in_scope: %+v", i)
	}
	if i, ok := Lookup("waits.pagelatch_ex"); !ok || i.Unit != Count || i.Label != "pagelatch ex waits" || !i.At(LevelDatabase) {
		t.Errorf("waits.pagelatch_ex: %+v", i)
	}
	if i, ok := Lookup("waits.writelog_ms"); !ok || i.Unit != Millis || i.Label != "writelog wait time" {
		t.Errorf("waits.writelog_ms: %+v", i)
	}
	if i, ok := Lookup("session_waits.writelog_ms"); !ok || i.Unit != Millis || i.Label != "workload sessions' writelog wait time" || i.Order != len(catalogue)+1 {
		t.Errorf("session_waits.writelog_ms: %+v", i)
	}
	if i, ok := Lookup("waits.wait/synch/sxlock/innodb/index_tree_rw_lock"); !ok || i.Show != WhenNonZero || i.Unit != Count {
		t.Errorf("a performance_schema instrument is shown when it counted something: %+v", i)
	}
	if i, _ := Lookup("waits.writelog"); i.Show != Shown {
		t.Errorf("a named wait type is always shown: %+v", i)
	}
	for _, n := range []string{"waits.", "waits._ms", "session_waits.", "enq_tx_index_contention", "log_byte"} {
		if _, ok := Lookup(n); ok {
			t.Errorf("%s is not a metric", n)
		}
	}
	names := []string{"size_bytes", "waits.b", "zzz", "log_bytes", "rows_inserted", "waits.a"}
	SortNames(names)
	if want := []string{"rows_inserted", "log_bytes", "size_bytes", "waits.a", "waits.b", "zzz"}; !slices.Equal(names, want) {
		t.Errorf("display order %v, want %v", names, want)
	}
}

// The driver's latency is named through DriverLatency and kept out of the
// catalogue: a budget on it would never be evaluated.
func TestDriverLatencyIsNotACatalogueMetric(t *testing.T) {
	if DriverLatency.Name != "latency" || DriverLatency.Unit != Millis {
		t.Errorf("DriverLatency: %+v", DriverLatency)
	}
	if _, ok := Lookup(DriverLatency.Name); ok {
		t.Errorf("Lookup takes %s, a name no run holds", DriverLatency.Name)
	}
	if slices.Contains(Names(), DriverLatency.Name) {
		t.Errorf("the catalogue holds %s", DriverLatency.Name)
	}
}

// identOf is a metric's exported value's name: leaf_inserts is LeafInserts.
func identOf(name string) string {
	var b strings.Builder
	for _, p := range strings.Split(name, "_") {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}
