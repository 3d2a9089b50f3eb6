package refreshtoken

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// The PR's "less WAL per refresh" (reposition.log_bytes) divides the
// window's whole log by the refreshes, so the logins' and logouts' log is
// in it too. This row says it of the refreshes' own transactions, from the
// run's per-operation section, and where that log goes: "a refresh writes
// 1,210 B of WAL, of which 860 B are index entries in 4 indexes". Where the
// split is not measured it says why instead of dividing the window's log.

// refreshLog is the claim row for the refreshes' own log.
func (x *claimCtx) refreshLog(p *claimPair, dialect string) result.Claim {
	log := dialects.LogName(dialect)
	s := claimSpec{id: "reposition.refresh_log", topic: "reposition",
		claim: "less " + log + " per refresh, counted in the refreshes' own transactions: fewer index entries per refresh",
		level: "operation", object: "refresh", metric: result.OperationLogBytes.Name}
	cl := x.base(p, s)
	cl.Unit = "per refresh"
	rule := "held when coarse's refreshes write less log of their own per refresh than baseline's beyond noise"
	ra, rb := x.c.Columns[p.a].Run, x.c.Columns[p.b].Run
	a, whyA := reports.OperationSplitOf(ra, "refresh")
	b, whyB := reports.OperationSplitOf(rb, "refresh")
	if whyA != "" || whyB != "" {
		return notMeasured(cl, splitMissing(dialect, log, ra, rb, whyA, whyB), rule)
	}
	e := result.Weaker(a.Exactness, b.Exactness)
	// No section's repetitions hold this figure: spread 0, as for sums.
	beyond, nr := reports.BeyondNoiseAs("bytes", a.LogBytes, b.LogBytes, e, x.same(p), 0)
	cl.Rule = rule + " (" + nr + "); else did not hold"
	cl.Before, cl.After, cl.Exactness = ptr(a.LogBytes), ptr(b.LogBytes), e
	ch := "="
	if a.LogBytes != 0 {
		cl.Change, cl.ChangeUnit = ptr(100*(b.LogBytes-a.LogBytes)/a.LogBytes), "percent"
		ch = fmt.Sprintf("%+.1f%%", *cl.Change)
	}
	// The labels name the level of a sweep (c=1) already.
	cl.Measured = fmt.Sprintf("%s: %s → %s: %s (%s)", x.c.Columns[p.a].Label, a.Sentence(dialect), x.c.Columns[p.b].Label, b.Sentence(dialect), ch)
	cl.Verdict = verdict(beyond && b.LogBytes < a.LogBytes)
	return cl
}

// splitMissing says why the refreshes' own log is not in the result: only
// PostgreSQL's decoded WAL carries each record's transaction, so elsewhere
// the figure is not measured (not derived from the window's total); on
// PostgreSQL, the collector that would have read it, missing with its
// reason, or the report's own.
func splitMissing(dialect, log string, ra, rb *result.Run, whyA, whyB string) string {
	if dialect != "postgres" {
		return fmt.Sprintf("per-operation costs are measured only from PostgreSQL's decoded WAL (each record's transaction, read by the operation that wrote it); on this server the %s per refresh is the window's total divided by the refreshes (reposition.log_bytes), logins' and logouts' included, and is not said to be the refreshes' own", log)
	}
	for _, r := range []*result.Run{ra, rb} {
		for _, m := range r.Missing {
			if m.Collector == "pg_wal" {
				return strings.TrimSpace("the WAL was not decoded: " + m.Reason + " " + m.Fix)
			}
		}
	}
	if whyA != "" {
		return whyA
	}
	return whyB
}
