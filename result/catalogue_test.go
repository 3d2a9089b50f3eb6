package result

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// collectorSources are the collectors' and derivers' files.
func collectorSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "collectors", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no collector sources: %v", err)
	}
	// The wait samplers' shared tally writes its names for every dialect.
	files = append(files, filepath.Join("..", "collectors", "waitshare.go"))
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(src)
	}
	return out
}

// The metric argument of the collectors' helpers, and the values of their
// name maps ("source name": "metric").
var (
	metricCall    = regexp.MustCompile(`\b(?:key|exact|iv|counter|add|db|put)\((?:[^"()]*|"")*"([a-z][a-z0-9_.]*)"`)
	metricMapping = regexp.MustCompile(`"[^"]+":\s+(?:\{)?"([a-z][a-z0-9_.]*)"`)
	// a level constant and the metric literal of the same call
	levelCall = regexp.MustCompile(`collectors\.(DB|Table|Index),[^"\n]*?(?:"[^"\n]*",[^"\n]*?)?"([a-z][a-z0-9_.]*)"`)
	dbCall    = regexp.MustCompile(`\bdb\("([a-z][a-z0-9_.]*)"`)
)

// notMetric are literals the scan meets that are source columns or info keys.
var notMetric = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`autovacuum_count autoanalyze_count vacuum_count leaf_allocation_count leaf_insert_count
		leaf_update_count leaf_delete_count leaf_ghost_count leaf_page_merge_count page_latch_wait_count page_latch_wait_in_ms
		row_lock_wait_count row_lock_wait_in_ms n_tup_ins n_tup_upd n_tup_del n_tup_hot_upd n_tup_newpage_upd idx_scan
		idx_tup_read idx_tup_fetch`) {
		notMetric[n] = true
	}
}

// Every metric name the collectors write is in the catalogue, at the level
// they write it; and every catalogue name is written by some collector (a
// name nobody writes is a budget that can never be evaluated).
func TestCatalogueCoversTheCollectors(t *testing.T) {
	srcs := collectorSources(t)
	written := map[string]bool{}
	for f, src := range srcs {
		for _, re := range []*regexp.Regexp{metricCall, metricMapping} {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				name := m[1]
				written[name] = true
				if _, ok := Lookup(name); !ok && !notMetric[name] {
					t.Errorf("%s writes metric %q, which the catalogue does not list", f, name)
				}
			}
		}
		levels := map[string]Level{"DB": LevelDatabase, "Table": LevelTable, "Index": LevelIndex}
		check := func(level Level, name string) {
			if info, ok := Lookup(name); ok && !info.At(level) {
				t.Errorf("%s writes %s at %s level; the catalogue lists it at %v", f, name, level, info.Levels)
			}
		}
		for _, m := range levelCall.FindAllStringSubmatch(src, -1) {
			check(levels[m[1]], m[2])
		}
		for _, m := range dbCall.FindAllStringSubmatch(src, -1) {
			check(LevelDatabase, m[1])
		}
	}
	var all strings.Builder // the code, comments left out
	for _, src := range srcs {
		for _, line := range strings.Split(src, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "//") {
				all.WriteString(line + "\n")
			}
		}
	}
	for _, i := range Catalogue() {
		if !written[i.Name] && !strings.Contains(all.String(), `"`+i.Name+`"`) {
			t.Errorf("the catalogue lists %s, which no collector writes", i.Name)
		}
	}
	// The scan finds what it should: a name written through each kind of helper.
	for _, n := range []string{"log_bytes", "leaf_inserts", "hot_ratio", "waits.row_lock", "block_changes", "page_merges"} {
		if !written[n] {
			t.Errorf("the scan of the collectors misses %s: fix the patterns", n)
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
			if !strings.Contains(string(src), `"`+n+`"`) {
				t.Errorf("%s does not write %s", f, n)
			}
		}
		gauges = append(gauges, names...)
	}
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
