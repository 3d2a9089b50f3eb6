package refreshtoken

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// planJob runs the job's model: at each tick after endMS, the passes of the
// variant over what is still live, in batches, until nothing is left. With
// offline sessions (--offline-percent) each run starts with Keycloak's
// offline pass (JpaUserSessionPersisterProvider.removeExpired calls
// expireOfflineSessions before expireRegularSessions): LAST_SESSION_REFRESH
// older than now - the offline idle timeout - 180 s, no CREATED_ON pass
// (offline max lifespan is off by default). It filters live in place: the
// caller's slice is the model's (a copy would be 48 bytes more per session,
// a large share of a long run's heap when the job is planned).
func (w *Workload) planJob(live []liveSession, endMS int64) jobPlan {
	p := w.P
	var jp jobPlan
	interval := p.ExpirationInterval.Milliseconds()
	idle, lifespan := int64(p.MaxIdle/time.Second), int64(p.MaxLifespan/time.Second)
	offIdle := p.idleSeconds(true)
	gran, offGran := Granularity(idle), p.granularity(true)
	coarse := w.baseVariant() == "coarse"
	batch := p.ExpirationBatch
	withOffline := p.OfflinePercent > 0
	for tick := (endMS/interval + 1) * interval; len(live) > 0; tick += interval {
		if withOffline {
			// Offline sessions idle for 30 days by default: thousands of
			// runs whose finds have nothing to do (read-only, no log),
			// each a statement per bucket. Once only offline sessions are
			// left the model jumps to the first run at which one is past
			// its cut-off; a regular session left keeps every run, as
			// without offline sessions.
			if due, ok := offlineDue(live, offIdle, interval); ok && due > tick {
				jp.skipped += (due - tick) / interval
				tick = due
			}
		}
		now := Epoch + tick/1000
		cutLast, cutCreated := now-idle-cleanerWindow, now-lifespan-cleanerWindow
		cutOffline := now - offIdle - cleanerWindow
		jp.runs++
		// pass runs one find until a batch comes back short, deleting what
		// it found; match says which live rows the find returns, cand which
		// its index range holds.
		pass := func(find, flag string, args func() []any, match, cand func(liveSession) bool) {
			var eligible idSet
			for _, s := range live {
				if match(s) {
					eligible = append(eligible, s.id)
				}
			}
			slices.SortFunc(eligible, compareSID)
			for {
				var ids []sid
				// In place: a copy of the live sessions per batch was most
				// of the job model's memory at 150,000 logins.
				keep := live[:0]
				examined := 0
				for _, s := range live {
					if cand(s) {
						examined++
					}
					if match(s) && len(ids) < batch {
						ids = append(ids, s.id)
						continue
					}
					keep = append(keep, s)
				}
				live = keep
				jp.deleted += len(ids)
				jp.batches = append(jp.batches, jobBatch{find: find, args: append(args(), batch), ids: ids, examined: examined,
					tick: jp.runs - 1, at: now, flag: flag, eligible: eligible})
				if len(ids) < batch {
					return
				}
			}
		}
		// only narrows a predicate to one kind of session: the finds bind
		// OFFLINE_FLAG, and it is an expiration index's second key column.
		only := func(offline bool, f func(liveSession) bool) func(liveSession) bool {
			return func(s liveSession) bool { return s.offline == offline && f(s) }
		}
		lastPass := func(flag string, cut int64, lastOK, coarseOK func(liveSession) bool) {
			switch {
			case !coarse:
				pass("rt_expire_find_last_refresh", flag, func() []any { return []any{realmID, false, cut} }, lastOK, lastOK)
			case p.CoarseExpiration == "all-buckets":
				pass("rt_expire_find_last_refresh_coarse_all", flag, func() []any { return []any{realmID, false, cut, cut} }, lastOK, coarseOK)
			default:
				for b := 0; b < p.Buckets; b++ {
					inB := func(f func(liveSession) bool) func(liveSession) bool {
						return func(s liveSession) bool { return int(s.bucket) == b && f(s) }
					}
					pass("rt_expire_find_last_refresh_coarse", flag, func() []any { return []any{realmID, false, b, cut, cut} }, inB(lastOK), inB(coarseOK))
				}
			}
		}
		if withOffline {
			lastPass(offlineFlag, cutOffline,
				only(true, func(s liveSession) bool { return s.lastRefresh < cutOffline }),
				only(true, func(s liveSession) bool { return Coarse(s.lastRefresh, s.createdOn, offGran) < cutOffline }))
		}
		lastPass(regularFlag, cutLast,
			only(false, func(s liveSession) bool { return s.lastRefresh < cutLast }),
			only(false, func(s liveSession) bool { return Coarse(s.lastRefresh, s.createdOn, gran) < cutLast }))
		createdOK := only(false, func(s liveSession) bool { return s.createdOn < cutCreated })
		if !coarse {
			pass("rt_expire_find_created_on", regularFlag, func() []any { return []any{realmID, false, cutCreated} }, createdOK, createdOK)
			continue
		}
		for b := 0; b < p.Buckets; b++ {
			inB := func(s liveSession) bool { return int(s.bucket) == b && createdOK(s) }
			pass("rt_expire_find_created_on_coarse", regularFlag, func() []any { return []any{realmID, false, b, cutCreated} }, inB, inB)
		}
	}
	return jp
}

// offlineDue is the first tick (ms) at which a live offline session is past
// the offline cut-off (LAST_SESSION_REFRESH < now - idle - 180 s, now the
// tick's second), when every live session is offline.
func offlineDue(live []liveSession, offIdle, intervalMS int64) (int64, bool) {
	var oldest int64
	for i, s := range live {
		if !s.offline {
			return 0, false
		}
		if i == 0 || s.lastRefresh < oldest {
			oldest = s.lastRefresh
		}
	}
	if len(live) == 0 {
		return 0, false
	}
	// The first second past the cut-off, rounded up to a tick.
	ms := (oldest + offIdle + cleanerWindow + 1 - Epoch) * 1000
	return -floorDiv(-ms, intervalMS) * intervalMS, true
}

// findKey names a find's text for the flag it binds: the offline pass runs
// the regular find with OFFLINE_FLAG '1' (offlineFinds).
func findKey(find, flag string) string {
	if flag == offlineFlag {
		return find + " offline"
	}
	return find
}

// regularLiteral is how every dialect's find blocks write Keycloak's JPQL
// literal sess.offline = '0'.
const regularLiteral = "offline_flag = '0'"

// offlineFinds adds the offline pass's texts: the finds with OFFLINE_FLAG
// '1', as Keycloak's findExpiredOfflineUserSessionsLastRefresh writes the
// literal. A find without the regular literal is refused rather than run
// as a regular one.
func offlineFinds(t texts) error {
	for _, n := range ExpireStatementNames {
		if !strings.HasPrefix(n, "rt_expire_find_") {
			continue
		}
		if strings.Count(t[n], regularLiteral) != 1 {
			return fmt.Errorf("%s does not bind %s exactly once", n, regularLiteral)
		}
		t[findKey(n, offlineFlag)] = strings.Replace(t[n], regularLiteral, "offline_flag = '1'", 1)
	}
	return nil
}
