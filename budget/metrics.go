package budget

import (
	"fmt"
	"sort"
	"strings"
)

// Metrics is every metric name a result can hold at database, table or
// index level, across dialects (result JSON, DESIGN.md's vocabulary). A
// budget naming anything else is refused before anything is measured;
// whether a metric exists on the server measured is known only after.
// TestMetricsCoverTheCollectors keeps the list in step with the collectors.
var Metrics = names(
	// rows and HOT (table)
	"rows_inserted", "rows_updated", "rows_deleted", "hot_updates", "non_hot_updates", "newpage_updates", "hot_ratio",
	"vacuum_runs", "autovacuum_runs", "autoanalyze_runs",
	// index writes and reads
	"leaf_inserts", "leaf_deletes", "leaf_updates", "leaf_page_splits", "leaf_allocations", "leaf_pages", "page_merges",
	"page_merge_attempts", "scans", "tuples_read", "tuples_fetched", "block_changes", "physical_writes",
	"page_latch_waits", "page_latch_wait_ms", "row_lock_waits", "row_lock_wait_ms", "buffer_busy_waits", "itl_waits",
	// sizes and pages
	"size_bytes", "size_pages", "pages_touched",
	// log volume
	"log_bytes", "log_records", "fpi_bytes", "fpi_count", "log_bytes_in_scope", "log_bytes_other", "log_bytes_other_objects",
	"log_bytes_stat", "log_bytes_written", "log_payload_bytes", "log_bytes_flushed", "log_flushes", "log_writes",
	"log_write_stall_ms", "log_record_bytes", "binlog_bytes", "redo_wastage_bytes", "undo_bytes", "wal_buffers_full",
	// database-wide
	"page_splits", "leaf_node_90_10_splits", "branch_node_splits", "enq_tx_index_contention",
	"transactions_committed", "transactions_rolled_back", "commit_statements", "checkpoints",
)

func names(ns ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// CheckMetrics refuses budgets whose metric no writeamp result has, naming
// the closest known names, so a typo fails before the measurement instead
// of after both.
func CheckMetrics(bs []Budget) error {
	for _, b := range bs {
		if Metrics[b.Metric] {
			continue
		}
		return fmt.Errorf("--budget %q: unknown metric %q%s (metrics are those of the result JSON, e.g. log_bytes, hot_ratio, leaf_inserts)", b.Text, b.Metric, closest(b.Metric))
	}
	return nil
}

// closest suggests known names sharing the unknown one's first word, or
// within a small edit distance.
func closest(s string) string {
	var out []string
	first, _, _ := strings.Cut(s, "_")
	for n := range Metrics {
		if d := distance(s, n); d <= 2 || strings.HasPrefix(n, first+"_") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	if len(out) > 6 {
		out = out[:6]
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// distance is the Levenshtein distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
