package refreshtoken

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Crossings replays the plan as the workload issues it and counts the
// refreshes that write the user session (a later second than the one
// stored) and, of those, the ones whose LAST_SESSION_REFRESH_COARSE changes:
// a coarse-boundary crossing, the one refresh that writes 26.8's expiration
// index. Sessions that live less than the granularity cross none (PR
// #51904's benchmark); offline and long SSO sessions cross every
// granularity seconds. Each session steps by its own granularity: regular
// for a regular session, offline for an offline one (offline.go).
func (p *Plan) Crossings(regular, offline int64) (crossings, userWrites int64) {
	c := p.cursor(0, 1)
	for {
		ev, ok := c.next()
		if !ok {
			return crossings, userWrites
		}
		s, now := ev.s, secOf(ev.at)
		switch ev.kind {
		case opLogin:
			s.lastRefresh = s.createdOn
		case opRefresh:
			if now > s.lastRefresh {
				gran := regular
				if s.offline {
					gran = offline
				}
				userWrites++
				if Coarse(now, s.createdOn, gran) != Coarse(s.lastRefresh, s.createdOn, gran) {
					crossings++
				}
				s.lastRefresh = now
			}
		}
	}
}

// lastRefreshIndex is the expiration index a refresh writes in 26.7 and a
// crossing in 26.8.
const lastRefreshIndex = "idx_user_session_expiration_last_refresh"

// AmendRun adds what the schedule knows and the server cannot say: the
// coarse-boundary crossings, and what the expiration index costs per
// refresh once the logins' own entries are taken out.
func (w *Workload) AmendRun(run *result.Run, st workloads.Stats) {
	gran := Granularity(int64(w.P.MaxIdle.Seconds()))
	plan := w.ensurePlan()
	cross, writes := plan.Crossings(gran, w.P.granularity(true))
	// Only a schema with LAST_SESSION_REFRESH_COARSE has boundaries to
	// cross: in baseline (26.7) the count would name a cost it never pays,
	// so its runs leave it out.
	if w.baseVariant() == "coarse" {
		src := fmt.Sprintf("the schedule: refreshes whose LAST_SESSION_REFRESH_COARSE (granularity %d s) changed", gran)
		if plan.Offline() > 0 {
			src = fmt.Sprintf("the schedule: refreshes whose LAST_SESSION_REFRESH_COARSE changed (granularity %d s, offline sessions' %d s)", gran, w.P.granularity(true))
		}
		run.Database[result.CoarseBoundaryCrossings.Name] = result.New(float64(cross), result.Exact, src)
		if refreshes := run.Operations["refreshes"]; refreshes > 0 {
			run.Database[result.CoarseBoundaryCrossingsPerRefresh.Name] = result.New(float64(cross)/float64(refreshes), result.Derived, src+", per refresh")
		}
	}
	if writes > 0 {
		run.Database[result.UserSessionWrites.Name] = result.New(float64(writes), result.Exact, "the schedule: refreshes that update OFFLINE_USER_SESSION (a later second than the one stored)")
	}
	if w.baseVariant() == "coarse" && st.Statements != nil {
		if got := st.Statements["rt_update_user_session_coarse"]; got != cross {
			run.Warnings = append(run.Warnings, fmt.Sprintf("the schedule has %d coarse-boundary crossings, the driver updated LAST_SESSION_REFRESH_COARSE %d times", cross, got))
		}
	}
	w.offlineSessions(run, plan)
	w.entriesPerRefresh(run)
}

// offlineSessions says how many of the window's sessions were offline, in a
// run that has any (a default run's figures stay PR #51904's).
func (w *Workload) offlineSessions(run *result.Run, plan *Plan) {
	if w.P.OfflinePercent == 0 {
		return
	}
	src := fmt.Sprintf("the schedule: logins whose session is offline (OFFLINE_FLAG '1'), round(%d × %g%%) chosen by --seed", plan.Logins, w.P.OfflinePercent)
	if pre := w.preloadSessions(); len(pre) > 0 {
		off := 0
		for _, s := range pre {
			if s.offline {
				off++
			}
		}
		src += fmt.Sprintf("; of the %d preloaded sessions (outside the window) %d are offline", len(pre), off)
	}
	run.Database[result.OfflineSessions.Name] = result.New(float64(plan.Offline()), result.Exact, src)
}

// entriesPerRefresh is (leaf inserts of the last-refresh expiration index -
// the sessions inserted) / refreshes: what refreshes alone cost that index.
func (w *Workload) entriesPerRefresh(run *result.Run) {
	refreshes := run.Operations["refreshes"]
	var leaf, ins result.Metric
	for _, ix := range run.Indexes {
		if strings.EqualFold(ix.Name, lastRefreshIndex) {
			leaf = ix.Metrics[result.LeafInserts.Name]
		}
	}
	for _, t := range run.Tables {
		if strings.EqualFold(t.Name, "offline_user_session") {
			ins = t.Metrics["rows_inserted"]
		}
	}
	if refreshes <= 0 {
		return
	}
	if !leaf.OK() || !ins.OK() {
		run.Database[result.RefreshExpirationIndexEntries.Name] = result.NA("leaf_inserts of "+lastRefreshIndex, "the index's leaf inserts or the table's inserted rows are not known on this server")
		return
	}
	e := result.Derived
	if leaf.Exactness == result.Approx || ins.Exactness == result.Approx {
		e = result.Approx
	}
	run.Database[result.RefreshExpirationIndexEntries.Name] = result.New((leaf.V()-ins.V())/float64(refreshes), e,
		"("+lastRefreshIndex+" leaf_inserts - offline_user_session rows_inserted) / refreshes")
}
