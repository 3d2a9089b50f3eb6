package refreshtoken

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// OperationStatements, which a variant file's edits are checked against,
// is exactly what the operations issue: every statement each operation's
// steps use in either variant (long sessions, so coarse crosses boundaries;
// logouts), and nothing they do not.
func TestOperationStatementsAreWhatTheOperationsIssue(t *testing.T) {
	t.Parallel()
	seen := map[string]map[string]bool{}
	for _, variant := range Variants {
		p := DefaultParams()
		p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.LogoutPercent = 50, 40, time.Minute, 50
		w := New(p)
		w.variant = variant
		tx := texts{"rt_insert_user_session": "x"}
		for _, n := range StatementNames {
			tx[n] = n
		}
		c := w.ensurePlan().cursor(0, 1)
		for {
			ev, ok := c.next()
			if !ok {
				break
			}
			steps, apply := w.steps(tx, ev)
			op := ev.kind.String()
			if seen[op] == nil {
				seen[op] = map[string]bool{}
			}
			for _, s := range steps {
				if slices.Contains(StatementNames, s.Name) {
					seen[op][s.Name] = true
				}
			}
			apply()
		}
	}
	for _, op := range fileOperations {
		var got []string
		for n := range seen[op] {
			got = append(got, n)
		}
		sort.Strings(got)
		want := slices.Clone(OperationStatements[op])
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s issues %v, OperationStatements says %v", op, got, want)
		}
	}
}

// Crossings are a count for the schemas that have a coarse column: a
// baseline run leaves them out, a coarse run (and a file variant built on
// coarse) carries the schedule's count.
func TestOnlyCoarseRunsReportCrossings(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod = 60, 40, time.Minute
	want, _ := New(p).ensurePlan().Crossings(Granularity(int64(p.MaxIdle/time.Second)), p.granularity(true))
	for variant, reports := range map[string]bool{"baseline": false, "coarse": true} {
		w := New(p)
		w.variant = variant
		run := &result.Run{Variant: variant, Database: map[string]result.Metric{}, Operations: map[string]int64{"refreshes": int64(p.Logins * p.RefreshesPerLogin)}}
		w.AmendRun(run, workloads.Stats{})
		m, ok := run.Database[result.CoarseBoundaryCrossings.Name]
		_, perRefresh := run.Database[result.CoarseBoundaryCrossingsPerRefresh.Name]
		if ok != reports || perRefresh != reports || (reports && (m.V() != float64(want) || want == 0)) {
			t.Errorf("%s: coarse_boundary_crossings %v (present %v, per refresh %v), want present=%v with %d", variant, m.V(), ok, perRefresh, reports, want)
		}
		if _, ok := run.Database[result.UserSessionWrites.Name]; !ok {
			t.Errorf("%s: no user_session_writes", variant)
		}
	}
}
