package reports

import (
	"sync"

	"github.com/writeamp/writeamp/result"
)

// ClaimsFunc holds claims someone made about a workload's variants against
// a comparison of its runs. A workload's own package registers it (for
// refresh-token, Keycloak PR #51904's claims live in workloads/refreshtoken);
// the reports render whatever claims a workload gives and know none.
type ClaimsFunc func(c *Comparison, res *result.Result) []result.Claim

type claimSource struct {
	heading string
	f       ClaimsFunc
}

var (
	claimsMu  sync.RWMutex
	claimsFor = map[string]claimSource{}
)

// RegisterClaims makes f the claims of results of the named workload;
// heading titles their section ("claims of Keycloak PR #51904 against ...").
func RegisterClaims(workload, heading string, f ClaimsFunc) {
	claimsMu.Lock()
	defer claimsMu.Unlock()
	claimsFor[workload] = claimSource{heading, f}
}

// claimsOf fills the comparison's claims and their heading.
func claimsOf(c *Comparison, res *result.Result) []result.Claim {
	if res == nil {
		return nil
	}
	claimsMu.RLock()
	src, ok := claimsFor[res.Workload.Name]
	claimsMu.RUnlock()
	if !ok {
		return nil
	}
	c.ClaimsHeading = src.heading
	return src.f(c, res)
}

// The findings' rules and wording, for a workload's claims to judge and say
// numbers as the findings do.

// SameWork: see sameWork.
func SameWork(res *result.Result, a, b *result.Run) (bool, string) { return sameWork(res, a, b) }

// BeyondNoise is the findings' noise rule for a metric (see beyondNoise).
func BeyondNoise(metric string, a, b float64, e result.Exactness, same bool, spread float64) (bool, string) {
	return beyondNoise(metric, a, b, e, same, spread)
}

// BeyondNoiseAs is BeyondNoise for a kind ("count", "bytes", "ratio", "timing").
func BeyondNoiseAs(kind string, a, b float64, e result.Exactness, same bool, spread float64) (bool, string) {
	return beyondNoiseAs(kind, a, b, e, same, spread)
}

// UnitOf is a metric's unit as the findings say it.
func UnitOf(c *Comparison, metric string) string { return unitOf(c, metric) }

// PerUnit is " per <operation>" when the comparison normalises, else "".
func PerUnit(c *Comparison) string { return perUnit(c) }

// FmtPair formats two values of a metric so their difference shows.
func FmtPair(c *Comparison, metric string, a, b float64) (string, string) {
	return fmtPair(c, metric, a, b)
}

// RepetitionSpread is the spread of repetitions per section and metric.
func RepetitionSpread(c *Comparison) map[string]float64 { return repetitionSpread(c) }

// Workers is a run's number of workers.
func Workers(res *result.Result, r *result.Run) int { return workers(res, r) }

// IsRatio reports a metric whose unit is a fraction.
func IsRatio(name string) bool { return isRatio(name) }

// Info is a metric's catalogue entry (an unknown name: a count).
func Info(name string) result.Info { return info(name) }
