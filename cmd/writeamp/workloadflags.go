package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// workloadFlags registers the refresh-token knobs, named after
// keycloak-benchmark's so scripts can rely on them, for every command that
// runs the built-in workload. --concurrency is left to each command: run takes
// a list (a sweep), check one level.
func workloadFlags(f *pflag.FlagSet, p *refreshtoken.Params, prefix string) {
	f.IntVar(&p.Logins, "logins", p.Logins, prefix+"user logins (sessions created)")
	f.IntVar(&p.RefreshesPerLogin, "refreshes-per-login", p.RefreshesPerLogin, prefix+"token refreshes per session")
	f.DurationVar(&p.RefreshPeriod, "refresh-period", p.RefreshPeriod, prefix+"simulated time between a session's refreshes")
	f.Float64Var(&p.LogoutPercent, "logout-percent", p.LogoutPercent, prefix+"share of sessions that log out after their refreshes")
	f.DurationVar(&p.MaxIdle, "max-idle", p.MaxIdle, prefix+"SSO session max idle; the coarse column's granularity is half of it")
	f.IntVar(&p.Buckets, "buckets", p.Buckets, prefix+"SESSION_BUCKET values (coarse variant)")
	f.Uint64Var(&p.Seed, "seed", p.Seed, prefix+"seed for session ids and who logs out (same seed, same work)")
	f.IntVar(&p.FillFactor, "fillfactor", p.FillFactor, prefix+"PostgreSQL heap fillfactor of the session tables (Keycloak ships 100; lower leaves room for HOT updates)")
	f.Float64Var(&p.UsersPerSecond, "users-per-second", p.UsersPerSecond, prefix+"simulated login arrival rate")
	f.DurationVar(&p.FirstRefreshAfter, "first-refresh-after", p.FirstRefreshAfter, prefix+"simulated time from a login to its code exchange and first refresh (keycloak-benchmark: none, so the first refresh lands in the login's second and writes nothing)")
	// The 26.8 details Keycloak has not published: defaults reproduce PR #51904, the report lists them as assumptions.
	f.StringVar(&p.BucketFunction, "bucket-function", p.BucketFunction, prefix+"how a session gets its SESSION_BUCKET (coarse variant): "+strings.Join(refreshtoken.BucketFunctions, "|"))
	f.StringVar(&p.BucketPosition, "bucket-position", p.BucketPosition, prefix+"where SESSION_BUCKET sits in the 26.8 expiration indexes: "+strings.Join(refreshtoken.BucketPositions, "|"))
	f.StringVar(&p.CSSUserSessionIndex, "css-user-session-index", p.CSSUserSessionIndex, prefix+"whether 26.8 drops IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE: "+strings.Join(refreshtoken.CSSUserSessionIndexs, "|"))
}

// Limits of the refresh-token workload's knobs beyond Params.Validate: what
// the workload writes must fit its columns, and the simulated clock must run
// the scenario the report states.
const (
	// maxLogins bounds the plan, which picks the sessions that log out from
	// a permutation of every login (8 bytes each).
	maxLogins = 10_000_000
	// maxScenarioSeconds: created_on, last_session_refresh and timestamp are
	// int columns (int4, as in Keycloak's schema) counting seconds from
	// refreshtoken.Epoch, so the whole scenario must end by 2038-01-19.
	maxScenarioSeconds = math.MaxInt32 - refreshtoken.Epoch
)

// checkWorkloadParams refuses values that would panic, overflow a column or
// run something other than what the report says: NaN and infinities, rates
// finer than the simulated clock's millisecond, and scenarios whose
// timestamps leave the int columns. It runs before connecting.
func checkWorkloadParams(p refreshtoken.Params) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(p.LogoutPercent) || p.LogoutPercent < 0 || p.LogoutPercent > 100:
		return fmt.Errorf("--logout-percent must be a number from 0 to 100 (got %g)", p.LogoutPercent)
	case !finite(p.UsersPerSecond) || p.UsersPerSecond <= 0:
		return fmt.Errorf("--users-per-second must be a positive number (got %g)", p.UsersPerSecond)
	case p.UsersPerSecond > 1000:
		return fmt.Errorf("--users-per-second must be at most 1000: the simulated clock counts milliseconds, so faster arrivals would all land at once (got %g)", p.UsersPerSecond)
	case p.RefreshPeriod < time.Millisecond || p.RefreshPeriod%time.Millisecond != 0:
		return fmt.Errorf("--refresh-period must be a whole number of milliseconds, at least 1ms: the simulated clock counts milliseconds (got %s)", p.RefreshPeriod)
	case p.Logins > maxLogins:
		return fmt.Errorf("--logins must be at most %d (got %d)", maxLogins, p.Logins)
	case p.RefreshesPerLogin > math.MaxInt32:
		return fmt.Errorf("--refreshes-per-login must be at most %d: VERSION is an int column counting them (got %d)", math.MaxInt32, p.RefreshesPerLogin)
	}
	arrival := 1 / p.UsersPerSecond
	span := float64(max(p.Logins-1, 0))*arrival + p.FirstRefreshAfter.Seconds() + float64(p.RefreshesPerLogin)*p.RefreshPeriod.Seconds()
	if limit := float64(maxScenarioSeconds); arrival > limit || span > limit {
		return fmt.Errorf("--logins, --users-per-second, --refreshes-per-login and --refresh-period give a scenario of %.3g simulated seconds: its timestamps are int seconds from 2026-01-01 and must end by 2038-01-19 (at most %d s)", span, int64(maxScenarioSeconds))
	}
	return nil
}
