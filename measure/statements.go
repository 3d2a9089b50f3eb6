package measure

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// ownDigests are writeamp's own SQL texts in digestForm, for the views
// that print a statement as its tokens (performance_schema's digests).
var ownDigests = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, b := range queries.All() {
		m[digestForm(strings.ReplaceAll(b.SQL, "{{schema}}", "?"))] = true
	}
	for _, t := range []string{"START TRANSACTION READ ONLY", "START TRANSACTION", "ROLLBACK", "COMMIT"} {
		m[digestForm(t)] = true
	}
	return m
})

var (
	quoteRe     = regexp.MustCompile("[`\"]")
	digestList  = regexp.MustCompile(`\(\?(?:,\?)*\)`)
	characterRe = regexp.MustCompile(`\bcharacter\b`)
)

// digestForm is a statement's text as its tokens, comparable between the
// SQL writeamp sends and performance_schema's DIGEST_TEXT, which quotes
// names with backquotes, spaces every token, prints CHAR as CHARACTER,
// replaces literals with ? and a list of them with (...).
func digestForm(s string) string {
	s = paramRe.ReplaceAllString(commentRe.ReplaceAllString(s, ""), "?")
	s = strings.ToLower(quoteRe.ReplaceAllString(s, ""))
	s = characterRe.ReplaceAllString(s, "char")
	s = strings.NewReplacer("(...)", "(?)", "<>", "!=", "-?", "?").Replace(s)
	s = strings.Join(strings.Fields(s), "")
	s = strings.ReplaceAll(s, "(...)", "(?)")
	return digestList.ReplaceAllString(s, "(?)")
}

// ownDigest says whether a digest text is one of writeamp's own reads; a
// text the view cut short (it ends "...") is one when it starts one.
func ownDigest(text string) bool {
	d := digestForm(text)
	own := ownDigests()
	if own[d] {
		return true
	}
	if cut, ok := strings.CutSuffix(strings.TrimSpace(text), "..."); ok {
		p := digestForm(cut)
		for o := range own {
			if len(p) > 40 && strings.HasPrefix(o, p) {
				return true
			}
		}
	}
	return false
}

var (
	// A statement view's digest replaces every constant: numbers, strings,
	// booleans and placeholders (a minus sign stays outside, so "-?" is
	// folded to "?" after).
	paramRe   = regexp.MustCompile(`\$\d+|'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b|(?i)\b(?:true|false)\b`)
	commentRe = regexp.MustCompile(`--[^\n]*|/\*.*?\*/`)
)

// topStatements is how many statements a run lists; the rest are counted.
const topStatements = 50

// statementsSection lists the window's statements, most log bytes first,
// and reconciles their sum with the window's own log total.
func statementsSection(d *collectors.Delta, run *result.Run) *result.Statements {
	if d.StatementView == nil {
		return nil
	}
	sec := &result.Statements{View: d.StatementView.View, Merge: d.StatementView.Merge}
	_, hasLog := d.StatementView.Sources[result.LogBytes.Name]
	if d.StatementView.Evictions == nil {
		sec.Notes = append(sec.Notes, NoEvictionCount(d.StatementView.View))
	}
	var sum, rowSum float64
	sumEx, rowEx := result.Exact, result.Exact
	for _, sd := range d.Statements {
		// The dialect knows the form its view records a text in; a view
		// without per-statement log prints tokens, compared as a digest.
		if dialects.OwnStatement(d.Server.Dialect, sd.Text) || (!hasLog && ownDigest(sd.Text)) {
			// writeamp's own snapshot reads: they write nothing, and
			// listing them would bury the workload's statements.
			sec.Observer++
			continue
		}
		st := result.Statement{Text: sd.Text, Key: sd.Key, Other: map[string]result.Metric{}}
		for k, m := range sd.Metrics {
			switch k {
			case "calls":
				st.Calls = m
			case "rows":
				st.Rows = m
			case result.LogBytes.Name:
				st.LogBytes = m
			default:
				st.Other[k] = m
			}
		}
		if !hasLog {
			st.LogBytes = result.NA(d.StatementView.View, "the view keeps no per-statement log bytes")
		}
		if st.Rows.OK() {
			rowSum += st.Rows.V()
			rowEx = result.Weaker(rowEx, st.Rows.Exactness)
		} else {
			rowEx = result.Weaker(rowEx, result.Approx)
		}
		if st.LogBytes.OK() {
			sum += st.LogBytes.V()
			sumEx = result.Weaker(sumEx, st.LogBytes.Exactness)
		} else if hasLog {
			sumEx = result.Weaker(sumEx, result.Approx)
		}
		sec.Top = append(sec.Top, st)
	}
	sort.SliceStable(sec.Top, func(i, j int) bool {
		a, b := sec.Top[i], sec.Top[j]
		if a.LogBytes.V() != b.LogBytes.V() {
			return a.LogBytes.V() > b.LogBytes.V()
		}
		if a.Rows.V() != b.Rows.V() {
			return a.Rows.V() > b.Rows.V()
		}
		return a.Key < b.Key
	})
	if len(sec.Top) > topStatements {
		sec.More = len(sec.Top) - topStatements
		sec.Top = sec.Top[:topStatements]
	}
	if !hasLog {
		reconcileRows(d.StatementView.View, d.StatementView.Sources["rows"], rowSum, rowEx, sec, run)
		return sec
	}
	src := d.StatementView.View + ": sum of the window's statements' " + d.StatementView.Sources[result.LogBytes.Name]
	s := result.Metric{Value: &sum, Exactness: result.Weaker(result.Derived, sumEx), Source: src}
	sec.LogBytes = &s
	total, what := windowLog(run)
	if total.OK() {
		rest := total.V() - sum
		// Arithmetic on two counts: exact when both are (the decoded
		// window and every statement's own count), no weaker otherwise.
		r := result.Metric{Value: &rest, Exactness: result.Weaker(total.Exactness, sumEx),
			Source: fmt.Sprintf("%s minus the statements' sum", what),
			Note:   "log written by no statement of this database that the view tracks: other databases, background work (checkpoints, autovacuum, the WAL writer), records a statement's backend wrote outside its execution (catalog pages pruned, with their full-page images, while a statement was parsed and planned), commit records of statements it does not track (utility statements with track_utility off, evicted entries)" + pageHeaders(what)}
		if total.V() > 0 {
			r.Note = fmt.Sprintf("%.1f%% of the window's %s; %s", 100*rest/total.V(), result.FormatBytes(total.V()), r.Note)
		}
		sec.Remainder = &r
		run.Database[result.StatementLogBytes.Name] = s
		run.Database[result.StatementLogBytesRemainder.Name] = r
	}
	return sec
}

// windowLog is the window's log total the statements are reconciled with:
// the decoded WAL (every record between the marks, counted as the
// statements count theirs) where the decoder ran, else pg_stat_wal, which
// misses what a backend has not yet published (after DDL, the catalog
// prunes' full-page images), else the LSN difference.
func windowLog(run *result.Run) (result.Metric, string) {
	if m := run.Database[result.LogBytesDecoded.Name]; m.OK() {
		return m, "the window's decoded WAL (sum of record lengths)"
	}
	if m := run.Database[result.LogBytesStat.Name]; m.OK() {
		return m, "pg_stat_wal.wal_bytes"
	}
	return run.Database[result.LogBytes.Name], "the window's log bytes"
}

// NoEvictionCount is the statements section's note where the view keeps no
// count of the entries it evicted (pg_stat_statements 1.8, PostgreSQL 13,
// has no pg_stat_statements_info): evictions cannot be fully detected.
func NoEvictionCount(view string) string {
	return view + " keeps no eviction count on this server (pg_stat_statements_info came with 1.9, PostgreSQL 14): evictions cannot be detected, except as an entry read before the window that is gone after it; a statement whose entry was created and evicted inside the window, or was evicted and recreated, is missing or undercounted without a trace, so the figures are exact only if the view never filled (pg_stat_statements.max)"
}

func pageHeaders(what string) string {
	if what != "the window's log bytes" {
		return ""
	}
	return ", and WAL page headers, which the LSN difference counts and no statement does"
}

// shownStatements is how many statements the notes of a report name.
const shownStatements = 5

// StatementNotes are the report's lines on the run's statements: the top
// ones with their rows and log bytes, how the view merges entries, and the
// reconciliation with the window's log.
func StatementNotes(run *result.Run) []string {
	sec := run.Statements
	if sec == nil || len(sec.Top) == 0 {
		return nil
	}
	by := "log bytes"
	if sec.LogBytes == nil {
		by = "rows (the view keeps no per-statement log)"
	}
	var out []string
	for i, st := range sec.Top {
		if i == shownStatements {
			break
		}
		text := strings.Join(strings.Fields(st.Text), " ")
		if len(text) > 100 {
			text = text[:97] + "..."
		}
		line := fmt.Sprintf("statement %d by %s (%s): %s: %s calls, %s rows", i+1, by, sec.View, text,
			result.FormatCount(st.Calls.V()), result.FormatCount(st.Rows.V()))
		if st.LogBytes.OK() {
			line += ", " + result.FormatBytes(st.LogBytes.V()) + " of log"
		}
		out = append(out, line+" ("+string(st.Rows.Exactness)+")")
	}
	if n := len(sec.Top) + sec.More - shownStatements; n > 0 {
		out = append(out, fmt.Sprintf("statements: %d more ran in the window (the result JSON lists up to %d)", n, topStatements))
	}
	if sec.LogBytes != nil && sec.Remainder != nil {
		out = append(out, fmt.Sprintf("statements: their log bytes sum to %s; the window's other %s: %s", result.FormatBytes(sec.LogBytes.V()), result.FormatBytes(sec.Remainder.V()), sec.Remainder.Note))
	}
	if sec.Rows != nil && sec.RowsRemainder != nil {
		out = append(out, fmt.Sprintf("statements: their rows affected sum to %s; the tables in scope wrote %s, the other %s: %s", result.FormatCount(sec.Rows.V()),
			result.FormatCount(sec.RowsInScope.V()), result.FormatCount(sec.RowsRemainder.V()), sec.RowsRemainder.Note))
	}
	for _, n := range sec.Notes {
		out = append(out, "statements: "+n)
	}
	if sec.Merge != "" {
		out = append(out, "statements: "+sec.Merge)
	}
	return out
}
