package main

import (
	"strings"

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
