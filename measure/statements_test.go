package measure

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// TestStatementsSectionEvictionNote: a view that keeps no eviction count
// (Evictions nil: pg_stat_statements 1.8 on PostgreSQL 13) gets the note
// that evictions cannot be detected, in the section and its report lines;
// one that keeps a count (14+, performance_schema) does not.
func TestStatementsSectionEvictionNote(t *testing.T) {
	t.Parallel()
	v := 10.0
	stmt := collectors.StatementDelta{Key: "k", Text: "update t set v = $1", Metrics: map[string]result.Metric{
		"calls": {Value: &v, Exactness: result.Exact}, "rows": {Value: &v, Exactness: result.Exact}, "log_bytes": {Value: &v, Exactness: result.Exact}}}
	for _, c := range []struct {
		evictions *float64
		want      bool
	}{{nil, true}, {&v, false}} {
		d := &collectors.Delta{Statements: []collectors.StatementDelta{stmt},
			StatementView: &collectors.Statements{View: "pg_stat_statements", Sources: map[string]string{"log_bytes": "wal_bytes"}, Evictions: c.evictions}}
		run := &result.Run{Database: map[string]result.Metric{}}
		sec := statementsSection(d, run)
		run.Statements = sec
		noted := len(sec.Notes) == 1 && strings.Contains(sec.Notes[0], "evictions cannot be detected")
		lines := strings.Join(StatementNotes(run), "\n")
		if noted != c.want || strings.Contains(lines, "evictions cannot be detected") != c.want {
			t.Errorf("evictions %v: notes %q, report lines %q; want the note %v", c.evictions, sec.Notes, lines, c.want)
		}
	}
}

// TestStatementsSectionReconcilesRows: a view without per-statement log
// reconciles the statements' rows affected with the in-scope tables' rows
// written (rows_written where only the sum is kept), signed and named; a
// table without row counters leaves the remainder unset, not wrong.
func TestStatementsSectionReconcilesRows(t *testing.T) {
	t.Parallel()
	num := func(x float64) result.Metric { return result.Metric{Value: &x, Exactness: result.Exact, Source: "s"} }
	st := func(k string, rows float64) collectors.StatementDelta {
		return collectors.StatementDelta{Key: k, Text: "UPDATE `" + k + "` SET v = ?", Metrics: map[string]result.Metric{"calls": num(1), "rows": num(rows)}}
	}
	d := &collectors.Delta{Statements: []collectors.StatementDelta{st("a", 30), st("b", 12)},
		StatementView: &collectors.Statements{View: "digests", Sources: map[string]string{"rows": "SUM_ROWS_AFFECTED"}, Evictions: new(float64)}}
	run := &result.Run{Database: map[string]result.Metric{}, Tables: []result.Object{
		{Name: "a", Metrics: map[string]result.Metric{"rows_inserted": num(20), "rows_updated": num(10), "rows_deleted": num(0)}},
		{Name: "c", Metrics: map[string]result.Metric{"rows_written": num(5)}}}}
	sec := statementsSection(d, run)
	if sec.Rows == nil || sec.Rows.V() != 42 || sec.RowsInScope.V() != 35 || sec.RowsRemainder.V() != -7 || !strings.Contains(sec.RowsRemainder.Note, "other schemas") {
		t.Fatalf("rows %v, in scope %v, remainder %v", sec.Rows, sec.RowsInScope, sec.RowsRemainder)
	}
	if sec.LogBytes != nil || len(sec.Notes) != 0 {
		t.Errorf("log bytes %v, notes %v: the view keeps an eviction count and no log", sec.LogBytes, sec.Notes)
	}
	run.Tables = append(run.Tables, result.Object{Name: "d", Metrics: map[string]result.Metric{}})
	if sec = statementsSection(d, run); sec.RowsInScope != nil || sec.RowsRemainder != nil || sec.Rows == nil {
		t.Errorf("a table without row counters: in scope %v, remainder %v", sec.RowsInScope, sec.RowsRemainder)
	}
}

// TestStatementsRemainderFromDecodedWAL: the log no statement accounts for
// is the decoded window minus the statements' sum where the decoder ran
// (pg_stat_wal lags a backend's unpublished WAL), exact when both parts
// are, with its share of the window; without the decoder it falls back to
// pg_stat_wal, and a statement of unknown log makes it approx.
func TestStatementsRemainderFromDecodedWAL(t *testing.T) {
	t.Parallel()
	num := func(x float64, ex result.Exactness) result.Metric {
		return result.Metric{Value: &x, Exactness: ex, Source: "s"}
	}
	st := func(k string, wal float64) collectors.StatementDelta {
		return collectors.StatementDelta{Key: k, Text: "update " + k + " set v = $1", Metrics: map[string]result.Metric{
			"calls": num(1, result.Exact), "rows": num(1, result.Exact), "log_bytes": num(wal, result.Exact)}}
	}
	d := &collectors.Delta{Statements: []collectors.StatementDelta{st("a", 150000), st("b", 8531)},
		StatementView: &collectors.Statements{View: "pg_stat_statements", Sources: map[string]string{"log_bytes": "wal_bytes"}, Evictions: new(float64)}}
	run := &result.Run{Database: map[string]result.Metric{
		"log_bytes_decoded": num(200000, result.Exact), "log_bytes_stat": num(166502, result.Approx), "log_bytes": num(201000, result.Exact)}}
	sec := statementsSection(d, run)
	r := sec.Remainder
	if r == nil || r.V() != 41469 || r.Exactness != result.Exact || !strings.Contains(r.Source, "decoded WAL") || !strings.HasPrefix(r.Note, "20.7% of the window's") {
		t.Fatalf("remainder %+v; want 41469 exact from the decoded WAL, 20.7%% of the window", r)
	}
	if m := run.Database["statement_log_bytes_remainder"]; m.V() != 41469 {
		t.Errorf("database statement_log_bytes_remainder %v", m.V())
	}
	if !strings.Contains(strings.Join(StatementNotes(&result.Run{Statements: sec}), "\n"), "20.7% of the window's") {
		t.Errorf("the report lines do not give the share: %q", StatementNotes(&result.Run{Statements: sec}))
	}
	delete(run.Database, "log_bytes_decoded")
	if r = statementsSection(d, run).Remainder; r.V() != 7971 || r.Exactness != result.Approx || !strings.HasPrefix(r.Source, "pg_stat_wal") {
		t.Errorf("without the decoder: remainder %v (%s, %s); want pg_stat_wal's 7971, approx", r.V(), r.Exactness, r.Source)
	}
	run.Database["log_bytes_decoded"] = num(200000, result.Exact)
	d.Statements[1].Metrics["log_bytes"] = result.Metric{Exactness: result.Unavailable}
	if r = statementsSection(d, run).Remainder; r.Exactness == result.Exact {
		t.Errorf("a statement without log bytes left the remainder %v exact", r.V())
	}
}

// TestOwnDigestsAreRecognised: performance_schema's digest texts of
// writeamp's own reads (backquoted names, spaced tokens, CHARACTER for
// CHAR, (...) for a list, a text cut short) are recognised as writeamp's,
// and a workload's statements are not.
func TestOwnDigestsAreRecognised(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"SELECT @@`performance_schema` ",
		"START TRANSACTION READ ONLY ",
		"SELECT COALESCE ( ( SELECT `COUNT_STAR` FROM `performance_schema` . `events_statements_summary_by_digest` WHERE `DIGEST` IS NULL ) , ? ) ",
		"SELECT `ENABLED` = ? FROM `performance_schema` . `setup_consumers` WHERE NAME = ? ",
		"SELECT NAME , `COUNT` , `ENABLED` != ? FROM `information_schema` . `INNODB_METRICS` WHERE NAME IN (...) ",
	} {
		if !ownDigest(text) {
			t.Errorf("not recognised as writeamp's own: %q", text)
		}
	}
	var long string
	for d := range ownDigests() {
		if len(d) > len(long) {
			long = d
		}
	}
	if !ownDigest(long[:len(long)/2] + " ...") {
		t.Errorf("a digest text cut short is not recognised: %.80q", long)
	}
	for _, text := range []string{
		"INSERT INTO `a` SELECT `seq` , ? FROM `seq_1_to_1234` ",
		"UPDATE `b` SET `v` = `v` + ? WHERE ID <= ? ",
		"SELECT NAME FROM `t` WHERE `id` IN (...) ",
	} {
		if ownDigest(text) {
			t.Errorf("a workload's statement taken for writeamp's own: %q", text)
		}
	}
}
