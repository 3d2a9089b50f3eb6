package refreshtoken

import (
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
)

// The statements of a login, a refresh and a logout as Keycloak 26.7+ issues
// them with persistent user sessions. README.md in this directory names the
// class each one comes from; the short version:
//
//   - Writes reach the database from JpaChangesPerformer in the request's own
//     transaction (PR #49454): the rows are first locked with JPA
//     PESSIMISTIC_WRITE and a lock timeout of -2 (SKIP LOCKED), and the lock
//     query returns VERSION to compare with the cached one.
//   - The entities are @DynamicUpdate and @Version: an UPDATE sets only the
//     columns that changed plus the new VERSION, and checks the old VERSION.
//   - A refresh changes the cached session only when the new second is later
//     than the stored one (UserSessionAdapter.setLastSessionRefresh,
//     AuthenticatedClientSessionAdapter.setTimestamp return early otherwise):
//     a refresh within the login's second queues no change, so nothing is
//     locked or written. That is where keycloak-benchmark's 10 refreshes give
//     9 updates, and PR #51904's 10 leaf inserts per login (1 insert + 9).
//   - The code exchange (AuthorizationCodeGrantType) reads the session from
//     the cache and writes nothing to these tables, so it has no statements.

// Effects says what each DML statement writes (statement names as counted in
// Stats.Statements).
func (w *Workload) Effects() map[string]workloads.Effect {
	eff := w.builtinEffects()
	for name, e := range eff {
		if cols, ok := w.editedColumns(name); ok {
			e.Columns = cols
			eff[name] = e
		}
	}
	return eff
}

func (w *Workload) builtinEffects() map[string]workloads.Effect {
	return map[string]workloads.Effect{
		"rt_insert_user_session":        {Table: "offline_user_session", Kind: "insert"},
		"rt_insert_client_session":      {Table: "offline_client_session", Kind: "insert"},
		"rt_update_user_session":        {Table: "offline_user_session", Kind: "update", Columns: []string{"last_session_refresh", "version"}},
		"rt_update_user_session_coarse": {Table: "offline_user_session", Kind: "update", Columns: []string{"last_session_refresh", "last_session_refresh_coarse", "version"}},
		"rt_update_client_session":      {Table: "offline_client_session", Kind: "update", Columns: []string{"timestamp", "version"}},
		"rt_delete_client_session":      {Table: "offline_client_session", Kind: "delete"},
		"rt_delete_user_session":        {Table: "offline_user_session", Kind: "delete"},
		// The expiration job's (expire.go), in its own window.
		"rt_expire_delete_client_sessions": {Table: "offline_client_session", Kind: "delete"},
		"rt_expire_delete_user_sessions":   {Table: "offline_user_session", Kind: "delete"},
	}
}

// StatementNames are the blocks the operations use ("rt_insert_user_session_"
// plus the variant is the insert).
var StatementNames = []string{"rt_select_user_session", "rt_insert_client_session", "rt_select_client_sessions",
	"rt_lock_user_session_skip_locked", "rt_lock_client_session_skip_locked", "rt_update_user_session",
	"rt_update_user_session_coarse", "rt_update_client_session", "rt_delete_client_session", "rt_lock_user_session",
	"rt_delete_user_session"}

type texts map[string]string

func (w *Workload) prepareTexts() (texts, error) {
	t := texts{}
	for _, n := range append([]string{"rt_insert_user_session_" + w.baseVariant()}, StatementNames...) {
		s, err := w.sql(n)
		if err != nil {
			return nil, err
		}
		t[n] = s
	}
	// The insert differs per variant; the rest are shared by name.
	t["rt_insert_user_session"] = t["rt_insert_user_session_"+w.baseVariant()]
	return t, w.applyEdits(t)
}

// steps are the statements of one operation, one transaction, and what the
// session's cached state becomes once they committed. They do not change the
// session themselves, so a retried transaction issues the same statements.
func (w *Workload) steps(t texts, ev event) ([]workloads.Step, func()) {
	s := ev.s
	now := secOf(ev.at)
	// findUserSession only returns a session refreshed within its idle
	// timeout: max idle, or the offline one for an offline session.
	live := now - w.P.idleSeconds(s.offline)
	gran := w.P.granularity(s.offline)
	flag := flagFor(s.offline)
	st := func(name string, query bool, want int64, args ...any) workloads.Step {
		return workloads.Step{Name: name, Stmt: dialects.Stmt{SQL: t[name], Args: args, Query: query}, Want: want}
	}
	switch ev.kind {
	case opLogin:
		// JpaChangesPerformer, ADD_IF_ABSENT: loadUserSession finds nothing,
		// then createUserSession and createClientSession persist both rows.
		args := []any{s.id, s.userID, realmID, s.createdOn, flag, userSessionData(s.id, s.userID, s.createdOn), s.createdOn, false}
		if w.baseVariant() == "coarse" {
			args = append(args, w.P.bucket(s.id), Coarse(s.createdOn, s.createdOn, gran))
		}
		return w.keep(opLogin, []workloads.Step{
				st("rt_select_user_session", true, 0, flag, s.id, realmID, live),
				st("rt_insert_user_session", false, 1, args...),
				st("rt_insert_client_session", false, 1, s.id, clientID, flag, s.createdOn, clientSessionData(clientID, s.createdOn), realmID),
			}), func() {
				s.lastRefresh, s.timestamp = s.createdOn, s.createdOn
			}
	case opRefresh:
		return w.refresh(st, s, now, live, gran, flag)
	default:
		// The logout removes the user session and its client sessions
		// (REMOVE tasks): both rows are locked in the prepare step, then
		// JpaUserSessionPersisterProvider.removeUserSession loads the client
		// sessions and removes them one by one (@Version: the DELETE checks
		// VERSION), finds the user session with PESSIMISTIC_WRITE and
		// removes it.
		return w.keep(opLogout, []workloads.Step{
			st("rt_lock_user_session_skip_locked", true, 1, flag, s.id),
			st("rt_lock_client_session_skip_locked", true, 1, clientID, flag, s.id),
			st("rt_select_client_sessions", true, 1, flag, s.id),
			st("rt_delete_client_session", false, 1, clientID, flag, s.id, s.clientVersion),
			st("rt_lock_user_session", true, 1, flag, s.id),
			st("rt_delete_user_session", false, 1, flag, s.id, s.userVersion),
		}), func() {}
	}
}

// refresh: TokenManager.refreshAccessToken sets the client session's
// timestamp and the user session's last refresh to the current second. Each
// setter queues a change only for a later second; the queued changes lock
// their rows, load the session, and update what changed.
func (w *Workload) refresh(st func(string, bool, int64, ...any) workloads.Step, s *session, now, live, gran int64, flag string) ([]workloads.Step, func()) {
	user, client := now > s.lastRefresh, now > s.timestamp
	var out []workloads.Step
	if user {
		out = append(out, st("rt_lock_user_session_skip_locked", true, 1, flag, s.id))
	}
	if client {
		out = append(out, st("rt_lock_client_session_skip_locked", true, 1, clientID, flag, s.id))
	}
	if user {
		// loadUserSession: the user session and its client sessions.
		out = append(out, st("rt_select_user_session", true, 1, flag, s.id, realmID, live),
			st("rt_select_client_sessions", true, 1, flag, s.id))
		upd := st("rt_update_user_session", false, 1, now, s.userVersion+1, flag, s.id, s.userVersion)
		// @DynamicUpdate: 26.8's coarse column is written only when it changes.
		if c := Coarse(now, s.createdOn, gran); w.baseVariant() == "coarse" && c != Coarse(s.lastRefresh, s.createdOn, gran) {
			upd = st("rt_update_user_session_coarse", false, 1, now, c, s.userVersion+1, flag, s.id, s.userVersion)
		}
		out = append(out, upd)
	} else if client {
		out = append(out, st("rt_select_client_sessions", true, 1, flag, s.id))
	}
	if client {
		out = append(out, st("rt_update_client_session", false, 1, now, s.clientVersion+1, clientID, flag, s.id, s.clientVersion))
	}
	// A variant file that drops a refresh's update leaves that row's VERSION
	// as it was (the logout's VERSION-checked deletes depend on it).
	userKept := !w.dropped(opRefresh, "rt_update_user_session") && !w.dropped(opRefresh, "rt_update_user_session_coarse")
	clientKept := !w.dropped(opRefresh, "rt_update_client_session")
	return w.keep(opRefresh, out), func() {
		if user {
			s.lastRefresh = now
			if userKept {
				s.userVersion++
			}
		}
		if client {
			s.timestamp = now
			if clientKept {
				s.clientVersion++
			}
		}
	}
}

// keep leaves out the steps the current variant drops from the operation.
func (w *Workload) keep(op opKind, steps []workloads.Step) []workloads.Step {
	if w.fileVariant() == nil {
		return steps
	}
	out := steps[:0:0]
	for _, st := range steps {
		if !w.dropped(op, st.Name) {
			out = append(out, st)
		}
	}
	return out
}
