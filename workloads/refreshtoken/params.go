package refreshtoken

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Params are the knobs, named after keycloak-benchmark's.
type Params struct {
	Logins            int
	RefreshesPerLogin int
	RefreshPeriod     time.Duration
	LogoutPercent     float64
	MaxIdle           time.Duration
	Buckets           int
	Seed              uint64
	UsersPerSecond    float64
	// FillFactor is the heap fillfactor of the session tables (PostgreSQL).
	// Keycloak ships 100; lower values leave room on each page for the new
	// row version, which decides whether an update can be HOT.
	FillFactor int
	// FirstRefreshAfter is the simulated time from the login to the code
	// exchange and the first refresh. keycloak-benchmark pauses neither
	// (user-think-time 0, the refresh loop pauses after each refresh), so
	// the first refresh lands in the login's second and writes nothing.
	FirstRefreshAfter time.Duration
	// The 26.8 unknowns (see README.md in this directory): how a session
	// gets its SESSION_BUCKET, where SESSION_BUCKET sits in the rebuilt
	// expiration indexes, and whether IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE
	// is dropped.
	BucketFunction      string // BucketFunctions
	BucketPosition      string // BucketPositions
	CSSUserSessionIndex string // "drop" or "keep" in the coarse variant
	// The expiration job (expire.go): Keycloak's scheduler interval, its
	// expirationBatch, the SSO session max lifespan its second pass uses,
	// and how 26.8 walks the buckets (not public). ExpirationJob off runs
	// none.
	ExpirationJob      bool
	ExpirationInterval time.Duration
	ExpirationBatch    int
	MaxLifespan        time.Duration
	CoarseExpiration   string // CoarseExpirations
	// Preload is the live sessions loaded before the window (preload.go).
	Preload int
	// VariantFile is a variant described in YAML (variantfile.go).
	VariantFile string
	// Warmup logins run before the window; Checkpoint is where the window
	// opens relative to a CHECKPOINT (warmup.go).
	Warmup     int
	Checkpoint string
	// WarmupUntilStable repeats the warm-up in rounds of Warmup logins
	// until the log rate per operation settles (warmup.go).
	WarmupUntilStable bool
	// OfflinePercent of the sessions are offline (OFFLINE_FLAG '1', an
	// offline_access token): they idle out after OfflineMaxIdle, the realm's
	// offlineSessionIdleTimeout, instead of MaxIdle (offline.go).
	OfflinePercent float64
	OfflineMaxIdle time.Duration
}

// The values the 26.8 unknowns can take; the first is the default.
var (
	BucketFunctions      = []string{"fnv1a", "java-hash"}
	BucketPositions      = []string{"before-time", "leading"}
	CSSUserSessionIndexs = []string{"drop", "keep"}
)

// DefaultParams reproduce PR #51904's scenario: 5 new users/s for 300 s,
// 10 refreshes 2 s apart, 10% log out. At that rate the database sees about
// 30 statements a second, one transaction at a time, so one worker
// (--concurrency, the runner's) is the faithful default: overlapping
// transactions hold back HOT pruning, which the reference run never had.
func DefaultParams() Params {
	return Params{Logins: 1500, RefreshesPerLogin: 10, RefreshPeriod: 2 * time.Second, LogoutPercent: 10,
		MaxIdle: 30 * time.Minute, Buckets: 64, Seed: 1, UsersPerSecond: 5, FillFactor: 100,
		BucketFunction: BucketFunctions[0], BucketPosition: BucketPositions[0], CSSUserSessionIndex: CSSUserSessionIndexs[0],
		ExpirationJob: true, ExpirationInterval: 900 * time.Second, ExpirationBatch: 512, MaxLifespan: 10 * time.Hour,
		CoarseExpiration: CoarseExpirations[0], Checkpoint: Checkpoints[0], OfflineMaxIdle: DefaultOfflineMaxIdle}
}

// DefaultOfflineMaxIdle is Keycloak's realm default offlineSessionIdleTimeout
// (2592000 s).
const DefaultOfflineMaxIdle = 30 * 24 * time.Hour

func oneOf(flag, v string, allowed []string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s must be one of %s (got %q)", flag, strings.Join(allowed, ", "), v)
}

// Validate names the flag that is wrong.
func (p Params) Validate() error {
	switch {
	case p.Logins < 1:
		return fmt.Errorf("--logins must be at least 1 (got %d)", p.Logins)
	case p.RefreshesPerLogin < 0:
		return fmt.Errorf("--refreshes-per-login must be 0 or more (got %d)", p.RefreshesPerLogin)
	case p.RefreshPeriod <= 0:
		return fmt.Errorf("--refresh-period must be positive (got %s)", p.RefreshPeriod)
	case p.LogoutPercent < 0 || p.LogoutPercent > 100:
		return fmt.Errorf("--logout-percent must be between 0 and 100 (got %g)", p.LogoutPercent)
	case p.MaxIdle < time.Second:
		return fmt.Errorf("--max-idle must be at least 1s (got %s)", p.MaxIdle)
	case p.Buckets < 1 || p.Buckets > 32767:
		return fmt.Errorf("--buckets must be between 1 and 32767 (SESSION_BUCKET is a SMALLINT; got %d)", p.Buckets)
	case p.FillFactor < 10 || p.FillFactor > 100:
		return fmt.Errorf("--fillfactor must be between 10 and 100 (got %d)", p.FillFactor)
	case p.UsersPerSecond <= 0:
		return fmt.Errorf("--users-per-second must be positive (got %g)", p.UsersPerSecond)
	case p.FirstRefreshAfter < 0:
		return fmt.Errorf("--first-refresh-after must be 0 or more (got %s)", p.FirstRefreshAfter)
	case p.ExpirationInterval < time.Second || p.ExpirationInterval%time.Second != 0:
		return fmt.Errorf("--expiration-interval must be a whole number of seconds, at least 1s (got %s)", p.ExpirationInterval)
	case p.ExpirationBatch < 1 || p.ExpirationBatch > 1000:
		return fmt.Errorf("--expiration-batch must be between 1 and 1000 (Oracle allows 1000 expressions in an IN list; got %d)", p.ExpirationBatch)
	case p.MaxLifespan < p.MaxIdle:
		return fmt.Errorf("--max-lifespan must be at least --max-idle (got %s < %s)", p.MaxLifespan, p.MaxIdle)
	case p.Preload < 0 || p.Preload > maxLogins:
		return fmt.Errorf("--preload must be between 0 and %d (got %d)", maxLogins, p.Preload)
	}
	if err := p.validateOffline(); err != nil {
		return err
	}
	if err := oneOf("--coarse-expiration", p.CoarseExpiration, CoarseExpirations); err != nil {
		return err
	}
	if err := oneOf("--checkpoint", p.Checkpoint, Checkpoints); err != nil {
		return err
	}
	if p.Warmup < 0 || p.Warmup > maxLogins {
		return fmt.Errorf("--warmup must be between 0 and %d logins (got %d)", maxLogins, p.Warmup)
	}
	if p.WarmupUntilStable && p.Warmup == 0 {
		return fmt.Errorf("--warmup-until-stable needs --warmup N: the warm-up repeats in rounds of N logins until the log rate per operation settles")
	}
	if p.Checkpoint == "steady" && p.Warmup == 0 {
		return fmt.Errorf("--checkpoint steady needs --warmup N: the window opens after a warm-up that follows the CHECKPOINT")
	}
	if err := oneOf("--bucket-function", p.BucketFunction, BucketFunctions); err != nil {
		return err
	}
	if err := oneOf("--bucket-position", p.BucketPosition, BucketPositions); err != nil {
		return err
	}
	return oneOf("--css-user-session-index", p.CSSUserSessionIndex, CSSUserSessionIndexs)
}

// Assumptions are the modelling choices the public Keycloak and
// keycloak-benchmark sources leave open, as this run made them; the report
// lists them next to the parameters. Each names the flag that changes it.
func (p Params) Assumptions() []string {
	fn := "FNV-1a(USER_SESSION_ID) mod --buckets"
	if p.BucketFunction == "java-hash" {
		fn = "Math.floorMod(USER_SESSION_ID.hashCode(), --buckets)"
	}
	pos := "between REMEMBER_ME and the timestamp"
	if p.BucketPosition == "leading" {
		pos = "as the leading key column"
	}
	css := "26.8 drops IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE (issue #51854 drops unused session indexes; the 26.8 upgrade note does not name it)"
	if p.CSSUserSessionIndex == "keep" {
		css = "26.8 keeps IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE (the 26.8 upgrade note does not mention dropping it)"
	}
	first := "the code exchange and the first refresh follow the login in the same second (keycloak-benchmark pauses before neither; request latency is not modelled)"
	if p.FirstRefreshAfter > 0 {
		first = fmt.Sprintf("the code exchange and the first refresh follow the login after %s of simulated time", p.FirstRefreshAfter)
	}
	out := []string{
		"SESSION_BUCKET = " + fn + " (--bucket-function; Keycloak's bucket function and count are not published)",
		"SESSION_BUCKET sits " + pos + " in both rebuilt 26.8 expiration indexes (--bucket-position; not published)",
		css + " (--css-user-session-index)",
		first + " (--first-refresh-after)",
		p.expirationAssumption(),
		"SQL Server 2019+: OPTIMIZE_FOR_SEQUENTIAL_KEY on both rebuilt expiration indexes (Keycloak's index test confirms it for IDX_USER_SESSION_EXPIRATION_CREATED only)",
	}
	return append(out, p.offlineAssumptions()...)
}

// expirationAssumption is how the 26.8 expiration job was modelled.
func (p Params) expirationAssumption() string {
	how := "one SESSION_BUCKET at a time (candidates by LAST_SESSION_REFRESH_COARSE, verified by LAST_SESSION_REFRESH), then CREATED_ON per bucket"
	if p.CoarseExpiration == "all-buckets" {
		how = "one range over all buckets (candidates by LAST_SESSION_REFRESH_COARSE, verified by LAST_SESSION_REFRESH), then CREATED_ON per bucket"
	}
	return "26.8's expiration job walks " + how + " (--coarse-expiration; its code is not public)"
}
