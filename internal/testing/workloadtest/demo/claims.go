package demo

import (
	"fmt"

	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// The demo's one claim, registered as refresh-token registers Keycloak's:
// the reports render it with no change of theirs.
func init() {
	reports.RegisterClaims(Name, "claims of the demo workload against what this comparison measured", claims)
}

// claims: an index on the updated column leaves no update HOT (the last
// column against the first: plain, then indexed, or a check's before/after).
func claims(c *reports.Comparison, res *result.Result) []result.Claim {
	if len(c.Columns) < 2 {
		return nil
	}
	cl := result.Claim{ID: "hot.index_on_v", Topic: "hot", Claim: "an index on the updated column leaves no update HOT",
		Source: "the demo workload", Metric: "hot_updates", Level: "table", Object: "counter",
		Rule: "held when the first column's updates were all HOT and the last column's none"}
	first, last := c.Columns[0].Run.Table("counter"), c.Columns[len(c.Columns)-1].Run.Table("counter")
	if first == nil || last == nil || !first.Metrics["hot_updates"].OK() || !last.Metrics["hot_updates"].OK() {
		cl.Verdict, cl.Why, cl.Exactness = result.NotMeasured, "no HOT count of the counter table in both runs", result.Unavailable
		return []result.Claim{cl}
	}
	a, b := first.Metrics["hot_updates"], last.Metrics["hot_updates"]
	cl.Before, cl.After, cl.Exactness = ptr(a.V()), ptr(b.V()), result.Weaker(a.Exactness, b.Exactness)
	cl.Measured = fmt.Sprintf("%.0f → %.0f HOT updates", a.V(), b.V())
	cl.Verdict = result.NotHeld
	if a.V() > 0 && b.V() == 0 {
		cl.Verdict = result.Held
	}
	return []result.Claim{cl}
}

func ptr(v float64) *float64 { return &v }
