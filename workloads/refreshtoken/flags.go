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
	f.DurationVar(&p.MaxIdle, "max-idle", p.MaxIdle, "SSO session max idle; the coarse column's granularity is half of it")
	f.IntVar(&p.Buckets, "buckets", p.Buckets, "SESSION_BUCKET values (coarse variant)")
	f.Uint64Var(&p.Seed, "seed", p.Seed, "seed for session ids and who logs out (same seed, same work)")
	f.IntVar(&p.FillFactor, "fillfactor", p.FillFactor, "PostgreSQL heap fillfactor of the session tables (Keycloak ships 100; lower leaves room for HOT updates)")
	f.Float64Var(&p.UsersPerSecond, "users-per-second", p.UsersPerSecond, "simulated login arrival rate")
	f.DurationVar(&p.FirstRefreshAfter, "first-refresh-after", p.FirstRefreshAfter, "simulated time from a login to its code exchange and first refresh (keycloak-benchmark: none, so the first refresh lands in the login's second and writes nothing)")
	// The 26.8 details Keycloak has not published: defaults reproduce PR #51904, the report lists them as assumptions.
	f.StringVar(&p.BucketFunction, "bucket-function", p.BucketFunction, "how a session gets its SESSION_BUCKET (coarse variant): "+strings.Join(BucketFunctions, "|"))
	f.StringVar(&p.BucketPosition, "bucket-position", p.BucketPosition, "where SESSION_BUCKET sits in the 26.8 expiration indexes: "+strings.Join(BucketPositions, "|"))
	f.StringVar(&p.CSSUserSessionIndex, "css-user-session-index", p.CSSUserSessionIndex, "whether 26.8 drops IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE: "+strings.Join(CSSUserSessionIndexs, "|"))
	f.BoolVar(&p.ExpirationJob, "expiration-job", p.ExpirationJob, "after each variant's window, run Keycloak's expiration job (ClearExpiredUserSessions) on the simulated clock until every session left has expired, and measure it in a window of its own")
	f.DurationVar(&p.ExpirationInterval, "expiration-interval", p.ExpirationInterval, "simulated time between expiration job runs (Keycloak's scheduled.interval)")
	f.IntVar(&p.ExpirationBatch, "expiration-batch", p.ExpirationBatch, "sessions the expiration job deletes per transaction (Keycloak's expirationBatch)")
	f.DurationVar(&p.MaxLifespan, "max-lifespan", p.MaxLifespan, "SSO session max lifespan: the expiration job's CREATED_ON pass")
	f.StringVar(&p.CoarseExpiration, "coarse-expiration", p.CoarseExpiration, "how 26.8's expiration job walks SESSION_BUCKET (not public): "+strings.Join(CoarseExpirations, "|"))
	f.IntVar(&p.Preload, "preload", p.Preload, "live sessions loaded before the window opens (spread over the max-idle horizon; their log is not counted)")
	f.IntVar(&p.Warmup, "warmup", p.Warmup, "logins (with their refreshes and logouts) run before the window opens, outside it")
	f.BoolVar(&p.WarmupUntilStable, "warmup-until-stable", p.WarmupUntilStable, fmt.Sprintf("repeat the warm-up in rounds of --warmup logins (new sessions each round) until two rounds in a row write log bytes per operation within %.0f%% of each other, at most %d rounds", 100*WarmupTolerance, MaxWarmupRounds))
	f.StringVar(&p.Checkpoint, "checkpoint", p.Checkpoint, "where the window opens: before (a CHECKPOINT right before it: the worst case for full-page images), none (no CHECKPOINT), steady (CHECKPOINT, then the warm-up, then the window)")
	f.Float64Var(&p.OfflinePercent, "offline-percent", p.OfflinePercent, "share of sessions that are offline (OFFLINE_FLAG '1'): they idle out after --offline-max-idle, and their coarse column's granularity is half of it")
	f.DurationVar(&p.OfflineMaxIdle, "offline-max-idle", p.OfflineMaxIdle, "the realm's offline session idle timeout (Keycloak's default: 30 days), for --offline-percent's sessions")
	f.StringVar(&p.VariantFile, "variant-file", p.VariantFile, "a YAML file describing one more variant (a name, a base variant, DDL and statement changes; workloads/refreshtoken/README.md), run after the built-in ones")
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
	return `run measures the built-in refresh-token workload, which models Keycloak's persistent
user sessions (Keycloak PR #51904) with keycloak-benchmark's AuthorizationCode
scenario: logins insert a user and a client session, token refreshes lock and
update both (a refresh in the login's second writes nothing, as in Keycloak),
a share of users log out. workloads/refreshtoken/README.md names the Keycloak
source of every statement and index.

Variants: baseline (Keycloak 26.7's tables and indexes, LAST_SESSION_REFRESH in
an expiration index) and coarse (26.8: SESSION_BUCKET, LAST_SESSION_REFRESH_COARSE,
rebuilt expiration indexes with INCLUDE columns where the database has them,
filtered broker index). What Keycloak has not published is a flag
(--bucket-function, --bucket-position, --css-user-session-index,
--first-refresh-after); the report lists these choices as assumptions.

Without --dsn (and without WRITEAMP_DSN, DATABASE_URL or PG* variables) it
starts a throwaway local PostgreSQL and removes it afterwards; --pg-bin (or
WRITEAMP_PG_BIN) picks its server binaries, so the same workload can be
measured on two major versions and compared. With --dsn it
creates its own schema in that database, touches nothing else, and drops the
schema at the end, on error and on Ctrl-C (--keep keeps it for inspection).

The clock is simulated: refresh timestamps follow --first-refresh-after and
--refresh-period, but the run
does not sleep, so a 300-second scenario runs as fast as the database allows.

After each variant's window, Keycloak's expiration job (ClearExpiredUserSessions)
runs on the simulated clock every --expiration-interval until every session left
has expired, measured in a window of its own (expiration_job_* figures;
--expiration-job=false skips it).`,
		`  writeamp run
  writeamp run --dsn postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
  writeamp run --logins 300 --variants coarse --format json --output coarse.json
  writeamp run --concurrency 8 --refresh-period 10m --max-idle 30m   # sessions cross coarse boundaries
  writeamp run --first-refresh-after 1s   # the first refresh writes too: 11 expiration-index entries per login
  writeamp run --logins 300 --refreshes-per-login 40 --refresh-period 60s   # 40-minute sessions: coarse-boundary crossings counted
  writeamp run --preload 20000 --warmup 300 --checkpoint steady   # a full table, the window between checkpoints
  writeamp run --offline-percent 30 --offline-max-idle 1h --refreshes-per-login 40 --refresh-period 60s   # offline sessions (OFFLINE_FLAG '1'): their own coarse granularity and expiration pass
  writeamp run --variant-file workloads/refreshtoken/client-timestamp-variant.yaml   # a variant of your own beside baseline and coarse
  writeamp run --concurrency 1,8,32 --variants coarse --format html -o sweep.html   # throughput, latency and write amplification per level
  writeamp run --pg-bin /usr/lib/postgresql/13/bin -o pg13.json --format json    # the same workload on two majors,
  writeamp run --pg-bin /usr/lib/postgresql/17/bin -o pg17.json --format json    # then: writeamp compare pg13.json pg17.json`
}
