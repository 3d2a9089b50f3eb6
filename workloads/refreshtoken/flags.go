package refreshtoken

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Flags are the workload's knobs, named after keycloak-benchmark's so
// scripts can rely on them, bound to w.P. --concurrency is the runner's, not
// the workload's (run takes a sweep, check one level).
func (w *Workload) Flags() *pflag.FlagSet {
	p := &w.P
	f := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	f.IntVar(&p.Logins, "logins", p.Logins, "user logins (sessions created)")
	f.IntVar(&p.RefreshesPerLogin, "refreshes-per-login", p.RefreshesPerLogin, "token refreshes per session")
	f.DurationVar(&p.RefreshPeriod, "refresh-period", p.RefreshPeriod, "simulated time between a session's refreshes")
	f.Float64Var(&p.LogoutPercent, "logout-percent", p.LogoutPercent, "share of sessions that log out after their refreshes")
	f.DurationVar(&p.MaxIdle, "max-idle", p.MaxIdle, "SSO session max idle (coarse granularity: half of it)")
	f.IntVar(&p.Buckets, "buckets", p.Buckets, "SESSION_BUCKET values (coarse variant)")
	f.Uint64Var(&p.Seed, "seed", p.Seed, "seed of session ids and logouts (same seed, same work)")
	f.IntVar(&p.FillFactor, "fillfactor", p.FillFactor, "heap fillfactor of the session tables (PostgreSQL)")
	f.Float64Var(&p.UsersPerSecond, "users-per-second", p.UsersPerSecond, "simulated login arrival rate")
	f.DurationVar(&p.FirstRefreshAfter, "first-refresh-after", p.FirstRefreshAfter, "simulated time from a login to its first refresh")
	// The 26.8 details Keycloak has not published: defaults reproduce PR #51904, the report lists them as assumptions.
	f.StringVar(&p.BucketFunction, "bucket-function", p.BucketFunction, "SESSION_BUCKET hash (coarse): "+strings.Join(BucketFunctions, "|"))
	f.StringVar(&p.BucketPosition, "bucket-position", p.BucketPosition, "26.8 index column order: "+strings.Join(BucketPositions, "|"))
	f.StringVar(&p.CSSUserSessionIndex, "css-user-session-index", p.CSSUserSessionIndex, "26.8's offline CSS index: "+strings.Join(CSSUserSessionIndexs, "|"))
	f.BoolVar(&p.ExpirationJob, "expiration-job", p.ExpirationJob, "measure Keycloak's expiration job after each window")
	f.DurationVar(&p.ExpirationInterval, "expiration-interval", p.ExpirationInterval, "simulated time between expiration job runs")
	f.IntVar(&p.ExpirationBatch, "expiration-batch", p.ExpirationBatch, "sessions the expiration job deletes per transaction")
	f.DurationVar(&p.MaxLifespan, "max-lifespan", p.MaxLifespan, "SSO session max lifespan")
	f.StringVar(&p.CoarseExpiration, "coarse-expiration", p.CoarseExpiration, "26.8 job's bucket walk: "+strings.Join(CoarseExpirations, "|"))
	f.IntVar(&p.Preload, "preload", p.Preload, "live sessions loaded before the window (not measured)")
	f.IntVar(&p.Warmup, "warmup", p.Warmup, "logins (with refreshes and logouts) run before the window")
	f.BoolVar(&p.WarmupUntilStable, "warmup-until-stable", p.WarmupUntilStable, fmt.Sprintf("repeat the warm-up until log bytes/op settle (%.0f%%, at most %d rounds)", 100*WarmupTolerance, MaxWarmupRounds))
	f.StringVar(&p.Checkpoint, "checkpoint", p.Checkpoint, "CHECKPOINT before the window: before|none|steady")
	f.Float64Var(&p.OfflinePercent, "offline-percent", p.OfflinePercent, "share of sessions that are offline (OFFLINE_FLAG '1')")
	f.DurationVar(&p.OfflineMaxIdle, "offline-max-idle", p.OfflineMaxIdle, "offline session idle timeout (Keycloak: 30 days)")
	f.StringVar(&p.VariantFile, "variant-file", p.VariantFile, "YAML file of one more variant (workloads/refreshtoken/README.md)")
	return f
}

// Validate checks the parameters before anything connects, naming the flag.
func (w *Workload) Validate() error {
	if err := checkLimits(w.P); err != nil {
		return err
	}
	if err := w.P.Validate(); err != nil {
		return err
	}
	return w.loadVariantFile()
}

// Limits of the knobs beyond Params.Validate: what the workload writes must
// fit its columns, and the simulated clock must run the scenario the report
// states.
const (
	// maxLogins bounds the plan, which picks the sessions that log out from
	// a permutation of every login (8 bytes each).
	maxLogins = 10_000_000
	// maxScenarioSeconds: created_on, last_session_refresh and timestamp are
	// int columns (int4, as in Keycloak's schema) counting seconds from
	// Epoch, so the whole scenario must end by 2038-01-19.
	maxScenarioSeconds = math.MaxInt32 - Epoch
)

// checkLimits refuses values that would panic, overflow a column or run
// something other than what the report says: NaN and infinities, rates finer
// than the simulated clock's millisecond, and scenarios whose timestamps
// leave the int columns.
func checkLimits(p Params) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(p.LogoutPercent) || p.LogoutPercent < 0 || p.LogoutPercent > 100:
		return fmt.Errorf("--logout-percent must be a number from 0 to 100 (got %g)", p.LogoutPercent)
	case !finite(p.OfflinePercent) || p.OfflinePercent < 0 || p.OfflinePercent > 100:
		return fmt.Errorf("--offline-percent must be a number from 0 to 100 (got %g)", p.OfflinePercent)
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
	// The expiration job's last run comes an offline idle timeout after the
	// scenario, and the CREATED_ON cut-off it binds is that run's time
	// less the max lifespan: an int column compared with it must hold it.
	if p.OfflinePercent > 0 {
		job := span + p.OfflineMaxIdle.Seconds() + cleanerWindow + p.ExpirationInterval.Seconds()
		if job > float64(maxScenarioSeconds) {
			return fmt.Errorf("--offline-max-idle %s: the expiration job would run until %.3g s after 2026-01-01, past 2038-01-19 where the int timestamp columns end (at most %d s)", p.OfflineMaxIdle, job, int64(maxScenarioSeconds))
		}
	}
	return nil
}

// Doc is `writeamp run`'s help for this workload.
func (w *Workload) Doc() (long, example string) {
	return `run measures the built-in refresh-token workload, a model of Keycloak's persistent user
sessions (PR #51904): logins insert a user and a client session, token refreshes update
both, a share of users log out, and Keycloak's expiration job then runs in a window of its
own. Variants: baseline (Keycloak 26.7's tables and indexes) and coarse (26.8's
SESSION_BUCKET and coarse refresh column); what Keycloak has not published is a flag, and
the report lists it as an assumption. The clock is simulated: the run does not sleep.
Without --dsn it starts a throwaway local PostgreSQL (--pg-bin picks its version); with
--dsn it works in a schema of its own, dropped at the end (--keep keeps it).`,
		`  writeamp run
  writeamp run --dsn postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
  writeamp run --logins 300 --variants coarse --format json --output coarse.json
  writeamp run --preload 20000 --warmup 300 --checkpoint steady   # a full table, between checkpoints
  writeamp run --concurrency 1,8,32 --variants coarse --format html -o sweep.html   # a sweep
  writeamp run --pg-bin /usr/lib/postgresql/13/bin -o pg13.json --format json   # two majors,
  writeamp run --pg-bin /usr/lib/postgresql/17/bin -o pg17.json --format json   # then compare them`
}
