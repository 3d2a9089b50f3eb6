package refreshtoken

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Offline sessions (--offline-percent): Keycloak keeps them in the same two
// tables with OFFLINE_FLAG '1', part of both primary keys and of every
// expiration index, and expires them by the realm's offline idle timeout
// (UserSessionExpirationLogic.expireOfflineSessions). A session of the plan
// is either regular or offline for its whole life; that Keycloak's
// offline_access login also leaves a regular session row is not modelled.

// The PCG streams that pick the offline sessions, apart from the logouts'
// (0x5eed): adding offline sessions leaves who logs out as it was.
const (
	offlineStream        = 0x0ff1
	preloadOfflineStream = 0x0ff2
)

// choose marks exactly round(n*pct/100) of n positions, picked by the seed
// on its own stream; nil when it marks none, so a run without offline
// sessions holds no slice for them.
func choose(n int, pct float64, seed, stream uint64) []bool {
	k := int(float64(n)*pct/100 + 0.5)
	if k == 0 {
		return nil
	}
	out := make([]bool, n)
	for _, i := range rand.New(rand.NewPCG(seed, stream)).Perm(n)[:k] {
		out[i] = true
	}
	return out
}

// WithOffline makes exactly round(logins*pct/100) of the plan's sessions
// offline, chosen by the plan's seed.
func (p *Plan) WithOffline(pct float64) *Plan {
	p.offline = choose(p.Logins, pct, p.Seed, offlineStream)
	return p
}

// Offline is the number of the plan's sessions that are offline.
func (p *Plan) Offline() int {
	n := 0
	for _, o := range p.offline {
		if o {
			n++
		}
	}
	return n
}

func (p *Plan) isOffline(i int) bool { return p.offline != nil && p.offline[i] }

// flagFor is the OFFLINE_FLAG a session's rows carry.
func flagFor(offline bool) string {
	if offline {
		return offlineFlag
	}
	return regularFlag
}

// idleSeconds is the timeout a session idles out after: the realm's SSO
// session max idle, or its offline session idle timeout.
func (p Params) idleSeconds(offline bool) int64 {
	if offline {
		return int64(p.OfflineMaxIdle / time.Second)
	}
	return int64(p.MaxIdle / time.Second)
}

// granularity is the session's LAST_SESSION_REFRESH_COARSE step: half its
// idle timeout. For offline sessions that the offline timeout sets it is an
// assumption (offlineAssumptions).
func (p Params) granularity(offline bool) int64 { return Granularity(p.idleSeconds(offline)) }

func (p Params) validateOffline() error {
	switch {
	case p.OfflinePercent < 0 || p.OfflinePercent > 100:
		return fmt.Errorf("--offline-percent must be between 0 and 100 (got %g)", p.OfflinePercent)
	case p.OfflineMaxIdle < time.Second:
		return fmt.Errorf("--offline-max-idle must be at least 1s (got %s)", p.OfflineMaxIdle)
	case p.OfflinePercent > 0 && (p.RefreshPeriod >= p.OfflineMaxIdle || p.FirstRefreshAfter >= p.OfflineMaxIdle):
		// findUserSession returns only a session refreshed within the idle
		// timeout: an offline session would expire between two refreshes.
		return fmt.Errorf("--offline-max-idle (%s) must be longer than --refresh-period (%s) and --first-refresh-after (%s): an offline session would idle out between its refreshes", p.OfflineMaxIdle, p.RefreshPeriod, p.FirstRefreshAfter)
	}
	return nil
}

// offlineAssumptions are listed only for a run with offline sessions: without
// them nothing depends on these choices.
func (p Params) offlineAssumptions() []string {
	if p.OfflinePercent == 0 {
		return nil
	}
	return []string{
		fmt.Sprintf("offline sessions' LAST_SESSION_REFRESH_COARSE steps by half the offline idle timeout (--offline-max-idle %s: %d s), not the SSO max idle (26.8's code is not public)", p.OfflineMaxIdle, p.granularity(true)),
		"26.8's offline expiration pass walks SESSION_BUCKET as its regular one does (--coarse-expiration); offline max lifespan is off (Keycloak's default), so there is no CREATED_ON pass for offline sessions",
		"the offline pass reuses the regular find with OFFLINE_FLAG '1' and REMEMBER_ME bound false; Keycloak's findExpiredOfflineUserSessionsLastRefresh has no REMEMBER_ME predicate (every row the workload writes has REMEMBER_ME false, so both return the same rows; the index range the server reads can differ)",
	}
}
