package refreshtoken

import (
	"fmt"

	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// The price PR #51904 names for 26.8's coarse column: "the coarse column
// adds complexity (the two-pass cleanup, the per-session offset logic)". The
// refresh-token workload measures Keycloak's expiration job after each
// variant's window (workloads/refreshtoken/expire.go); these rows compare
// what it cost per expired session. The claim holds when the two-pass
// cleanup costs more than 26.7's beyond noise: the price is real.

// cleanupSpecs are the job's figures compared per expired session.
var cleanupSpecs = []struct {
	metric *result.Info
	what   string
}{
	{result.ExpirationJobLogBytes, "log bytes"},
	{result.ExpirationJobBatches, "find-and-delete transactions"},
	{result.ExpirationJobRowsExamined, "rows examined"},
}

// cleanup: "the two-pass cleanup costs …", one row per figure, or one
// saying the job was not measured.
func (x *claimCtx) cleanup(p *claimPair) []result.Claim {
	ba, bb := x.c.Columns[p.a].Run, x.c.Columns[p.b].Run
	rule := "held when the two-pass cleanup's figure per expired session is higher than 26.7's beyond noise (the price is real); else did not hold"
	perSession := func(r *result.Run, metric string) (float64, result.Exactness, bool) {
		m, n := r.Database[metric], r.Database[result.ExpirationJobSessionsDeleted.Name]
		if !m.OK() || !n.OK() || n.V() <= 0 {
			return 0, result.Unavailable, false
		}
		return m.V() / n.V(), result.Weaker(result.Derived, result.Weaker(m.Exactness, n.Exactness)), true
	}
	if _, _, ok := perSession(ba, result.ExpirationJobBatches.Name); !ok {
		if _, _, ok := perSession(bb, result.ExpirationJobBatches.Name); !ok {
			cl := x.base(p, claimSpec{id: "cleanup", topic: "cleanup", claim: "the two-pass cleanup (candidates through the coarse column per SESSION_BUCKET, then verified) costs more per expired session", metric: "expiration_job_*"})
			return []result.Claim{notMeasured(cl, "no expiration job in this result (refresh-token runs it after each window unless --expiration-job=false)", rule)}
		}
	}
	var out []result.Claim
	for _, s := range cleanupSpecs {
		cl := x.base(p, claimSpec{id: "cleanup." + s.metric.Name[len("expiration_job_"):], topic: "cleanup",
			claim: "the two-pass cleanup (candidates through the coarse column per SESSION_BUCKET, then verified) costs more " + s.what + " per expired session",
			level: "database", metric: s.metric.Name})
		a, ea, oka := perSession(ba, s.metric.Name)
		b, eb, okb := perSession(bb, s.metric.Name)
		if !oka || !okb {
			out = append(out, notMeasured(cl, "no expiration job in this result (refresh-token runs it after each window unless --expiration-job=false)", rule))
			continue
		}
		e := result.Weaker(ea, eb)
		beyond, nr := reports.BeyondNoise(s.metric.Name, a, b, e, x.same(p), 0)
		cl.Rule = rule + " (" + nr + ")"
		cl.Before, cl.After, cl.Exactness, cl.Unit = ptr(a), ptr(b), e, "per expired session"
		ch := "="
		if a != 0 {
			cl.Change, cl.ChangeUnit = ptr(100*(b-a)/a), "percent"
			ch = fmt.Sprintf("%+.1f%%", *cl.Change)
		}
		cl.Measured = fmt.Sprintf("%s%.1f → %.1f %s per expired session (%s)", x.at(p), a, b, s.what, ch)
		cl.Verdict = verdict(beyond && b > a)
		out = append(out, cl)
	}
	return out
}
