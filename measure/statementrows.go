package measure

import (
	"fmt"

	"github.com/writeamp/writeamp/result"
)

// rowsRemainderNote names what makes the statements' rows affected differ
// from the rows the tables in scope counted: a positive remainder is rows
// the tables counted that no digest did, a negative one rows the digests
// counted outside the scope.
const rowsRemainderNote = "rows written to the tables in scope minus the statements' rows affected: " +
	"statements on other schemas' tables count in the statements' sum but not in scope (negative); " +
	"statements summed without a digest (the digest table was full) and writes of other sessions' digests read before the window count only in scope; " +
	"rows written by triggers and cascading foreign keys are counted by the storage engine, not as the statement's rows affected; " +
	"INSERT … ON DUPLICATE KEY UPDATE and REPLACE report 2 rows affected for each row they replace"

// reconcileRows is the reconciliation of a view that keeps no per-statement
// log (performance_schema's digests): the statements' rows affected against
// the rows inserted, updated and deleted of the window's tables in scope,
// the only per-window write count both sides have. It sets nothing when a
// table in scope has no row counters: a partial total would make the
// remainder a wrong number rather than a missing one.
func reconcileRows(view, column string, sum float64, sumEx result.Exactness, sec *result.Statements, run *result.Run) {
	src := fmt.Sprintf("%s: sum of the window's statements' %s", view, column)
	s := result.Metric{Value: &sum, Exactness: result.Weaker(result.Derived, sumEx), Source: src}
	sec.Rows = &s
	total, ok := inScopeRows(run)
	if !ok {
		return
	}
	sec.RowsInScope = &total
	rest := total.V() - sum
	r := result.Metric{Value: &rest, Exactness: result.Weaker(result.Derived, result.Weaker(total.Exactness, sumEx)),
		Source: "the tables in scope's rows_inserted + rows_updated + rows_deleted minus the statements' sum", Note: rowsRemainderNote}
	sec.RowsRemainder = &r
}

// inScopeRows sums rows_inserted + rows_updated + rows_deleted over the
// run's tables (rows_written where the server counts only their sum), with
// the weakest exactness of the figures summed.
func inScopeRows(run *result.Run) (result.Metric, bool) {
	s := run.TableRows()
	if s.Uncounted > 0 || s.Counted == 0 {
		return result.Metric{}, false
	}
	src := "rows inserted + updated + deleted of the tables in scope"
	if s.Source != "" {
		src += " (" + s.Source + ")"
	}
	return result.Metric{Value: &s.N, Exactness: s.Exactness, Source: src}, true
}
