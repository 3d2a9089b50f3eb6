package refreshtoken

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
)

// Keycloak's ClearExpiredUserSessions, as model/jpa's
// UserSessionExpirationLogic.expireRegularSessions runs it (26.7): per realm,
// batches of findExpiredRegularUserSessionsLastRefresh (LAST_SESSION_REFRESH
// older than now - max idle - SessionTimeoutHelper's 180 s cleaner window),
// then of findExpiredRegularUserSessionsCreatedOn (CREATED_ON older than now
// - max lifespan - 180 s); each batch of at most expirationBatch ids (512 by
// default, JpaUserSessionPersisterProviderFactory) is deleted in the same
// transaction, client sessions first (deleteClientSessionsByUserSessions,
// deleteUserSessions), and the loop stops at the first batch that comes
// back short. The scheduler runs it every 900 s (Config "scheduled.interval").
//
// 26.8 finds the candidates through LAST_SESSION_REFRESH_COARSE and verifies
// them against LAST_SESSION_REFRESH; its code is not public, so how it walks
// the buckets is --coarse-expiration (an assumption the report lists).

// cleanerWindow is SessionTimeoutHelper.PERIODIC_CLEANER_IDLE_TIMEOUT_WINDOW_SECONDS.
const cleanerWindow = 180

// The values --coarse-expiration takes; the first is the default.
var CoarseExpirations = []string{"per-bucket", "all-buckets"}

// ExpireStatementNames are the expiration job's blocks.
var ExpireStatementNames = []string{"rt_expire_find_last_refresh", "rt_expire_find_created_on",
	"rt_expire_find_last_refresh_coarse", "rt_expire_find_created_on_coarse", "rt_expire_find_last_refresh_coarse_all",
	"rt_expire_delete_client_sessions", "rt_expire_delete_user_sessions"}

// liveSession is a row the job may delete: what the table holds at the end
// of the scenario for a session that did not log out (or a preloaded one).
type liveSession struct {
	id                     sid
	createdOn, lastRefresh int64
	bucket                 int32
	offline                bool
}

// FinalSessions replays the plan and returns the sessions still in the table
// when it ends (those that did not log out), with their last written
// LAST_SESSION_REFRESH, and the simulated time (ms) of its last event.
// What it keeps while replaying is three figures per login, not the
// cursor's sessions: a map of those held a few hundred bytes for every
// session still open, the largest part of a long run's live heap when its
// job was planned.
func (p *Plan) FinalSessions(bucket func(string) int) (live []liveSession, endMS int64) {
	c := p.cursor(0, 1)
	in := make([]bool, p.Logins)
	created := make([]int64, p.Logins)
	last := make([]int64, p.Logins)
	for {
		ev, ok := c.next()
		if !ok {
			break
		}
		s, now := ev.s, secOf(ev.at)
		endMS = max(endMS, ev.at)
		switch ev.kind {
		case opLogin:
			in[s.idx], created[s.idx], last[s.idx] = true, s.createdOn, s.createdOn
		case opRefresh:
			last[s.idx] = max(last[s.idx], now)
		case opLogout:
			in[s.idx] = false
		}
	}
	for i, ok := range in {
		if ok {
			id := p.sessionSID(i)
			live = append(live, liveSession{id: id, createdOn: created[i], lastRefresh: last[i], bucket: int32(bucket(id.String())), offline: p.isOffline(i)})
		}
	}
	return live, endMS
}

// jobBatch is one transaction of the job: a find, and the deletes of what it
// found.
type jobBatch struct {
	find     string
	args     []any
	ids      []sid
	examined int    // rows the find's index range holds before the verification (26.8)
	tick     int    // the job run it belongs to (0, 1, ...)
	at       int64  // that run's simulated second
	flag     string // the OFFLINE_FLAG its find selects and its deletes bind
	// eligible are the sessions the find's pass may return: every live one
	// matching its predicate when the pass starts. With more of them than a
	// batch, which ones a find returns is the server's choice (the query
	// has no ORDER BY), so the job deletes what the find returned and
	// refuses only an id outside this set.
	eligible idSet
}

// idSet is a sorted list of session ids: a third of a map's memory for the
// 100,000 sessions a long run leaves to the job.
type idSet []sid

// has is whether the find's row id is one of s: a text not in the plan's
// form of an id is none of them.
func (s idSet) has(id string) bool {
	k, ok := parseSID(id)
	if !ok {
		return false
	}
	_, ok = slices.BinarySearchFunc(s, k, compareSID)
	return ok
}

// jobPlan is every job run after the scenario until the last session has
// expired: runs at the interval's ticks, each a list of batches.
type jobPlan struct {
	runs    int
	batches []jobBatch
	deleted int
	// skipped are the runs the model left out: with only offline sessions
	// left and none due, it jumps to the first run one is (planJob).
	skipped int64
}

// ExpandIn fills a statement's {{in:N}} with n bind parameters from N on, in
// the dialect's syntax, and {{after}} with the one after them: Hibernate binds
// an IN list's collection one parameter per element.
func ExpandIn(text, dialect string, n int) string {
	i := strings.Index(text, "{{in:")
	if i < 0 {
		return text
	}
	j := strings.Index(text[i:], "}}")
	from, err := strconv.Atoi(text[i+5 : i+j])
	if err != nil {
		return text
	}
	ph := func(k int) string {
		switch dialect {
		case "postgres":
			return fmt.Sprintf("$%d", k)
		case "sqlserver":
			return fmt.Sprintf("@p%d", k)
		case "oracle":
			return fmt.Sprintf(":%d", k)
		}
		return "?"
	}
	list := make([]string, n)
	for k := range list {
		list[k] = ph(from + k)
		if dialect == "sqlserver" {
			list[k] = "CAST(" + list[k] + " AS varchar(36))"
		}
	}
	out := text[:i] + strings.Join(list, ", ") + text[i+j+2:]
	return strings.ReplaceAll(out, "{{after}}", ph(from+n))
}

// jobOps turns the job's batches into operations of one transaction each.
func (w *Workload) jobOps(jp jobPlan) (workloads.Ops, error) {
	t := texts{}
	for _, n := range ExpireStatementNames {
		s, err := w.sql(n)
		if err != nil {
			return nil, fmt.Errorf("the expiration job has no %s on %s: %w", n, w.target.Server, err)
		}
		t[n] = s
	}
	if w.P.OfflinePercent > 0 {
		if err := offlineFinds(t); err != nil {
			return nil, fmt.Errorf("the expiration job's offline pass on %s: %w", w.target.Server, err)
		}
	}
	d := w.target.Server.Dialect
	// A batch's statements are made when a worker takes it: made up front,
	// every batch's two IN-list texts and its closures were held until the
	// job ended (a 150,000-login run's job has thousands of batches).
	return func(worker, workers int) workloads.Next {
		i := worker
		return func() (workloads.Op, bool) {
			if i >= len(jp.batches) {
				return workloads.Op{}, false
			}
			b := jp.batches[i]
			i += workers
			return workloads.Op{Name: "expiration batch", Counts: "expiration_batches", Steps: batchSteps(t, d, b)}, true
		}
	}, nil
}

// batchSteps are one batch's find and the deletes of the ids it returned
// (Keycloak deletes what its find returned): the find's rows are read
// before the deletes are bound, and a find that returns a session the
// model does not have expiring in this pass, the same session twice, or
// another count than the model's fails the batch before anything is
// deleted.
func batchSteps(t texts, d string, b jobBatch) []workloads.Step {
	n := len(b.ids)
	var got []string
	text := t[findKey(b.find, b.flag)]
	find := dialects.Stmt{SQL: text, Args: b.args, Query: true,
		// Late resets what a retried attempt read.
		Late: func() (string, []any, error) { got = got[:0]; return text, b.args, nil },
		Each: func(scan func(...any) error) error {
			var id string
			var user any // USER_ID is nullable on MySQL/MariaDB
			if err := scan(&id, &user); err != nil {
				return err
			}
			if !b.eligible.has(id) {
				return fmt.Errorf("%s returned session %q, which the model does not have expiring in this pass: the job refuses to delete it", b.find, id)
			}
			if slices.Contains(got, id) {
				return fmt.Errorf("%s returned session %q twice", b.find, id)
			}
			got = append(got, id)
			return nil
		}}
	steps := []workloads.Step{{Name: b.find, Stmt: find, Want: int64(n)}}
	if n == 0 {
		return steps
	}
	found := func() ([]string, error) {
		if len(got) != n {
			return nil, fmt.Errorf("%s returned %d sessions, the model expected %d: nothing deleted", b.find, len(got), n)
		}
		return got, nil
	}
	cs := ExpandIn(t["rt_expire_delete_client_sessions"], d, n)
	us := ExpandIn(t["rt_expire_delete_user_sessions"], d, n)
	return append(steps,
		workloads.Step{Name: "rt_expire_delete_client_sessions", Want: int64(n), Stmt: dialects.Stmt{SQL: cs, Late: func() (string, []any, error) {
			ids, err := found()
			args := make([]any, 0, n+1)
			for _, id := range ids {
				args = append(args, id)
			}
			return cs, append(args, b.flag), err
		}}},
		workloads.Step{Name: "rt_expire_delete_user_sessions", Want: int64(n), Stmt: dialects.Stmt{SQL: us, Late: func() (string, []any, error) {
			ids, err := found()
			args := []any{b.flag}
			for _, id := range ids {
				args = append(args, id)
			}
			return us, args, err
		}}})
}
