package collectors

import (
	"context"
	"fmt"
	"sort"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// StatementCollector reads the server's per-statement statistics
// (pg_stat_statements, performance_schema's digests, sys.dm_exec_query_stats,
// V$SQLSTATS). They are cumulative per normalised statement and never reset
// by writeamp: a window is the difference of two readings, entry by entry.
type StatementCollector interface {
	Source
	Statements(ctx context.Context, q dialects.Querier, s dialects.Server) (*Statements, error)
}

// Statements is one reading of a server's per-statement statistics.
type Statements struct {
	// View names what was read, e.g. "pg_stat_statements 1.10".
	View string `json:"view"`
	// Sources says, per metric, which column it is.
	Sources map[string]string `json:"sources"`
	Rows    []StatementRow    `json:"rows"`
	// Evictions is the view's count of entries it dropped to make room
	// (pg_stat_statements_info.dealloc, 14+); nil where it keeps none.
	Evictions *float64 `json:"evictions,omitempty"`
	// Reset is when the whole view was last reset ("" = not known).
	Reset string `json:"reset,omitempty"`
	// Merge says how the view merges statements into one entry.
	Merge string `json:"merge,omitempty"`
}

// StatementRow is one entry of the view.
type StatementRow struct {
	// Key identifies the entry (e.g. queryid/userid/toplevel).
	Key  string `json:"key"`
	Text string `json:"text"`
	// Since is when the entry started counting, where the view says
	// (pg_stat_statements 1.11+ stats_since): a change means it was evicted
	// and recreated.
	Since  string             `json:"since,omitempty"`
	Values map[string]float64 `json:"values"`
}

// StatementDelta is what one statement did in a window.
type StatementDelta struct {
	Key     string
	Text    string
	Metrics map[string]result.Metric
}

// diffStatements subtracts the entries of two readings. An entry absent
// before was created in the window and counts from zero; one whose Since
// changed, or whose counters went down, was evicted or reset and is
// unavailable. Evictions in the window make every entry approximate: an
// evicted entry's work is lost, and one recreated since counts only from then.
// A view without an eviction count shows an eviction only as an entry that
// vanished; one created and evicted inside the window leaves no trace, which
// the statements section says (measure: NoEvictionCount).
func diffStatements(before, after *Statements) ([]StatementDelta, []string) {
	if before == nil || after == nil {
		return nil, nil
	}
	var warns []string
	ex := result.Exact
	evicted := ""
	if before.Evictions != nil && after.Evictions != nil && *after.Evictions > *before.Evictions {
		ex = result.Approx
		evicted = fmt.Sprintf("%s was full during the window and dropped %.0f (entries evicted past its max setting, or statements summed without a digest): what was dropped is missing, and an entry recreated since counts only from then", after.View, *after.Evictions-*before.Evictions)
		warns = append(warns, evicted)
	}
	if after.Evictions == nil {
		// No eviction count (pg_stat_statements 1.8 on PostgreSQL 13 has no
		// pg_stat_statements_info): the one trace an eviction leaves is an
		// entry read before the window that is gone after it.
		if gone := vanished(before, after); gone > 0 {
			ex = result.Approx
			evicted = fmt.Sprintf("%s saw evictions in the window: %d entries read before it are gone after it (evicted past its max setting, or reset; the view keeps no eviction count): what they did is missing, and one recreated since counts only from then", after.View, gone)
			warns = append(warns, evicted)
		}
	}
	if before.Reset != after.Reset && before.Reset != "" {
		warns = append(warns, fmt.Sprintf("%s was reset during the window (at %s): its per-statement figures are unavailable", after.View, after.Reset))
		return nil, warns
	}
	prev := map[string]StatementRow{}
	for _, r := range before.Rows {
		prev[r.Key] = r
	}
	var out []StatementDelta
	for _, r := range after.Rows {
		p, had := prev[r.Key]
		if had && p.Values["calls"] == r.Values["calls"] {
			continue // not run in the window
		}
		sd := StatementDelta{Key: r.Key, Text: r.Text, Metrics: map[string]result.Metric{}}
		reset := ""
		switch {
		case had && p.Since != r.Since:
			reset = fmt.Sprintf("the entry was evicted or reset during the window (counting since %s)", r.Since)
		case had && r.Values["calls"] < p.Values["calls"]:
			reset = "the entry's calls went down: it was evicted or reset during the window"
		}
		names := make([]string, 0, len(r.Values))
		for k := range r.Values {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			src := after.View + "." + after.Sources[k]
			if reset != "" {
				sd.Metrics[k] = result.NA(src, reset)
				continue
			}
			v := r.Values[k] - p.Values[k]
			m := result.Metric{Value: &v, Exactness: ex, Source: src, Note: evicted}
			if !had {
				m.Note = joinNote(m.Note, "entry created during the window; counted from its creation")
			}
			sd.Metrics[k] = m
		}
		out = append(out, sd)
	}
	return out, warns
}

// vanished counts the entries of before that after lacks.
func vanished(before, after *Statements) int {
	now := make(map[string]bool, len(after.Rows))
	for _, r := range after.Rows {
		now[r.Key] = true
	}
	n := 0
	for _, r := range before.Rows {
		if !now[r.Key] {
			n++
		}
	}
	return n
}
