package budget

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestCheckMetricsRefusesUnknownNames(t *testing.T) {
	bs, err := ParseAll([]string{"log_bytes/op<=+5%", "leaf_insert/op<=+0%"})
	if err != nil {
		t.Fatal(err)
	}
	err = CheckMetrics(bs)
	if err == nil || !strings.Contains(err.Error(), "leaf_insert") || !strings.Contains(err.Error(), "leaf_inserts") {
		t.Errorf("want an error naming the typo and suggesting leaf_inserts, got %v", err)
	}
	ok, _ := ParseAll(Examples)
	if err := CheckMetrics(ok); err != nil {
		t.Errorf("the examples are valid: %v", err)
	}
}

// Every metric of a real result and every metric name the collectors write
// is in Metrics.
func TestMetricsCoverTheCollectors(t *testing.T) {
	r, err := result.Read(filepath.Join("..", "reports", "testdata", "refresh_token_pg15.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		for m := range run.Database {
			if !Metrics[m] {
				t.Errorf("database metric %s of the fixture is not in Metrics", m)
			}
		}
		for _, o := range append(run.Tables, run.Indexes...) {
			for m := range o.Metrics {
				if !Metrics[m] {
					t.Errorf("metric %s of %s is not in Metrics", m, o.Name)
				}
			}
		}
	}
	// The metric argument of the collectors' helpers, and the values of
	// their name maps ("source name": "metric").
	call := regexp.MustCompile(`\b(?:key|exact|iv|counter|add|db|put)\((?:[^"()]*|"")*"([a-z][a-z0-9_]*)"`)
	mapping := regexp.MustCompile(`"[^"]+":\s+(?:\{)?"([a-z][a-z0-9_]*)"`)
	files, _ := filepath.Glob(filepath.Join("..", "collectors", "*", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f)
		for _, re := range []*regexp.Regexp{call, mapping} {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				name := m[1]
				if !Metrics[name] && !notMetric[name] {
					t.Errorf("%s writes metric %q, which Metrics does not list", f, name)
				}
			}
		}
	}
}

// notMetric are literals the scan above meets that are sources or info keys.
var notMetric = names("autovacuum_count", "autoanalyze_count", "vacuum_count", "leaf_allocation_count", "leaf_insert_count",
	"leaf_update_count", "leaf_delete_count", "leaf_ghost_count", "leaf_page_merge_count", "page_latch_wait_count",
	"page_latch_wait_in_ms", "row_lock_wait_count", "row_lock_wait_in_ms", "n_tup_ins", "n_tup_upd", "n_tup_del",
	"n_tup_hot_upd", "n_tup_newpage_upd", "idx_scan", "idx_tup_read", "idx_tup_fetch")
