package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// abCounts is one variant's operations that send statements, from the
// workload's tally: every login sends 3 statements (find, 2 inserts), every
// refresh that updates sends 6 (2 locks, 2 loads, 2 updates), every logout 6
// (2 locks, load, delete, lock, delete). A refresh within the login's second
// sends nothing, so it is not counted.
type abCounts struct {
	variant                    string
	logins, updates, coarseUpd int
	logouts                    int
}

func (c abCounts) statements() int { return 3*c.logins + 6*c.updates + 6*c.logouts }

// abTally reads each variant's counts from its writes and says them; the
// peer's pipelines update the user and the client session together, as the
// default workload's refreshes do, so a run where they differ is refused.
func abTally(runs []abRun) ([]abCounts, string) {
	var out []abCounts
	var parts []string
	total := 0
	for _, r := range runs {
		c := abCounts{variant: r.Variant, logins: r.rows("rt_insert_user_session"), coarseUpd: r.rows("rt_update_user_session_coarse"), logouts: r.rows("rt_delete_user_session")}
		c.updates = r.rows("rt_update_user_session") + c.coarseUpd
		if c.logins == 0 || r.rows("rt_insert_client_session") != c.logins || r.rows("rt_update_client_session") != c.updates || r.rows("rt_delete_client_session") != c.logouts {
			fatal(fmt.Sprintf("the A/B's %s tally is not the default workload's shape (one client session per user session, both updated together): %+v", r.Variant, r.Writes))
		}
		out = append(out, c)
		total += c.statements()
		parts = append(parts, fmt.Sprintf("%s %d logins x3, %d updating refreshes x6 (%d coarse), %d logouts x6", c.variant, c.logins, c.updates, c.coarseUpd, c.logouts))
	}
	same := true
	for _, p := range parts {
		same = same && strings.TrimPrefix(p, strings.Fields(p)[0]) == strings.TrimPrefix(parts[0], strings.Fields(parts[0])[0])
	}
	if same && len(parts) > 1 {
		// The usual case: both variants send the same counts.
		return out, fmt.Sprintf("%d variants x (%s) = %d statements", len(parts), strings.TrimSpace(strings.TrimPrefix(parts[0], strings.Fields(parts[0])[0])), total)
	}
	return out, fmt.Sprintf("%s = %d statements", strings.Join(parts, "; "), total)
}

// peerAB is the same statements through pgbench, each variant in a schema
// the workload's own Prepare creates (its DDL, its seeded statistics). The
// peer's time is the CHECKPOINT and the pgbench processes only; writeamp's
// is its whole command (prepare, snapshots, settle, log read, report):
// the peer is the floor the statements themselves cost.
func peerAB(ctx context.Context, db *sql.DB, srv dialects.Server, runs []abRun) (cost, string) {
	counts, tally := abTally(runs)
	var total time.Duration
	u0, s0 := childCPU()
	for _, c := range counts {
		w := refreshtoken.New(refreshtoken.DefaultParams())
		target := dialects.Target{DB: db, Dialect: pg.Dialect{}, Server: srv}
		if err := w.Prepare(ctx, target, c.variant); err != nil {
			fatal("A/B peer: prepare " + c.variant + ": " + err.Error())
		}
		d := peerVariant(db, srv, w.Schema(), c)
		// Each logout's VERSION-checked deletes match only if every refresh
		// of its session updated: the rows left say the script was right.
		var left int
		if err := db.QueryRow(`SELECT (SELECT count(*) FROM ` + w.Schema() + `.offline_user_session) + (SELECT count(*) FROM ` + w.Schema() + `.offline_client_session)`).Scan(&left); err != nil {
			fatal("A/B peer: " + err.Error())
		}
		if err := w.Cleanup(ctx, target); err != nil {
			fatal("A/B peer: cleanup: " + err.Error())
		}
		if want := 2 * (c.logins - c.logouts); left != want {
			fatal(fmt.Sprintf("A/B peer %s: %d rows left, want %d (a statement matched no row)", c.variant, left, want))
		}
		total += d
	}
	u1, s1 := childCPU()
	return cost{wall: total.Seconds(), user: u1 - u0, sys: s1 - s0}, tally
}

// The script's variables: a login, refresh or logout counter (k, j: set
// with -D and kept by pgbench across a client's transactions) picks the
// session. Refresh k (from 1) hits the session at position (k-1) mod L of a
// fixed permutation, so its VERSION before is (k-1) div L and a logout knows
// its session's VERSION without reading it, as writeamp's cached model does.
// Session ids are 19-digit numbers (Keycloak's UUIDs are 36 characters):
// pgbench builds no strings, and -M prepared binds each variable whole.
const (
	sidExpr      = "1000000000000000000 + permute(:s - 1, :L, 7) * 1000000007"
	loginHead    = "\\set k :k + 1\n\\set s :k\n\\set sid " + sidExpr + "\n\\set now :t0 + :k\n\\set bucket :k % 64\n"
	refreshHead  = "\\set k :k + 1\n\\set s permute((:k - 1) % :L, :L, 11) + 1\n\\set sid " + sidExpr + "\n\\set v (:k - 1) / :L\n\\set v1 :v + 1\n\\set now :t0 + :L + :k\n"
	logoutHead   = "\\set j :j + 1\n\\set p permute(:j - 1, :L, 13)\n\\set s permute(:p, :L, 11) + 1\n\\set sid " + sidExpr + "\n\\set v (:R - :p + :L - 1) / :L\n"
	pipelineOpen = "\\startpipeline\n"
)

// Each statement's $N in order, as operations.go binds them.
var abBinds = map[string][]string{
	"rt_select_user_session":             {"flag", "sid", "realm", "t0"},
	"rt_insert_user_session_baseline":    {"sid", "k", "realm", "now", "flag", "udata", "now", "rm"},
	"rt_insert_user_session_coarse":      {"sid", "k", "realm", "now", "flag", "udata", "now", "rm", "bucket", "now"},
	"rt_insert_client_session":           {"sid", "client", "flag", "now", "cdata", "realm"},
	"rt_lock_user_session_skip_locked":   {"flag", "sid"},
	"rt_lock_client_session_skip_locked": {"client", "flag", "sid"},
	"rt_select_client_sessions":          {"flag", "sid"},
	"rt_update_user_session":             {"now", "v1", "flag", "sid", "v"},
	"rt_update_user_session_coarse":      {"now", "now", "v1", "flag", "sid", "v"},
	"rt_update_client_session":           {"now", "v1", "client", "flag", "sid", "v"},
	"rt_delete_client_session":           {"client", "flag", "sid", "v"},
	"rt_lock_user_session":               {"flag", "sid"},
	"rt_delete_user_session":             {"flag", "sid", "v"},
}

var placeholder = regexp.MustCompile(`\$(\d+)`)

// pgbenchStmt is the workload's statement text with its $N as pgbench
// variables (and its comment lines dropped: pgbench would read a colon in
// them as a variable).
func pgbenchStmt(srv dialects.Server, schema, name string) string {
	text, err := queries.Get(pg.Name, name, srv.VersionNum)
	if err != nil {
		fatal("A/B peer: " + err.Error())
	}
	var lines []string
	for _, l := range strings.Split(refreshtoken.Render(text, schema, refreshtoken.DefaultParams()), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	binds := abBinds[name]
	return placeholder.ReplaceAllStringFunc(strings.Join(lines, "\n"), func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return ":" + binds[n-1]
	}) + ";\n"
}

// peerVariant runs one variant's operations through pgbench and returns
// the time of the CHECKPOINT and the pgbench processes.
func peerVariant(db *sql.DB, srv dialects.Server, schema string, c abCounts) time.Duration {
	st := func(names ...string) string {
		var b strings.Builder
		b.WriteString(pipelineOpen)
		for _, n := range names {
			b.WriteString(pgbenchStmt(srv, schema, n))
		}
		b.WriteString("\\endpipeline\n")
		return b.String()
	}
	refresh := func(upd string) string {
		return refreshHead + st("rt_lock_user_session_skip_locked", "rt_lock_client_session_skip_locked", "rt_select_user_session", "rt_select_client_sessions", upd, "rt_update_client_session")
	}
	login := loginHead + st("rt_select_user_session", "rt_insert_user_session_"+c.variant, "rt_insert_client_session")
	logout := logoutHead + st("rt_lock_user_session_skip_locked", "rt_lock_client_session_skip_locked", "rt_select_client_sessions", "rt_delete_client_session", "rt_lock_user_session", "rt_delete_user_session")
	dir, err := os.MkdirTemp("", "writeamp-bench-ab")
	if err != nil {
		fatal(err.Error())
	}
	defer os.RemoveAll(dir)
	// The payloads are the workload's sizes (they decide what fits on a
	// page, so whether an update stays HOT): a session JSON like its.
	udata := `{"ipAddress":"10.1.2.77","authMethod":"openid-connect","rememberMe":false,"started":0,"notes":{"KC_DEVICE_NOTE":"eyJpcEFkZHJlc3MiOiIxMC4wLjAuMSIsIm9zIjoiTGludXgiLCJicm93c2VyIjoiQ2hyb21lLzEyMC4wIiwiZGV2aWNlIjoiT3RoZXIiLCJtb2JpbGUiOmZhbHNlfQ==","AUTH_TIME":"1700000001","authenticators-completed":"{\"3f6d5c1e-6a2b-4c7e-9d1a-001700000001\":1700000001}"},"state":"LOGGED_IN"}`
	cdata := `{"authMethod":"openid-connect","redirectUri":"https://app.example.com/callback","notes":{"clientId":"c0ffee00-0000-4000-8000-000000000001","iss":"https://sso.example.com/realms/benchmark","startedAt":"1700000001","level-of-authentication":"-1","scope":"openid profile email","userSessionStartedAt":"1700000001","SSO_AUTH":"false"}}`
	vars := []string{"L=" + strconv.Itoa(c.logins), "R=" + strconv.Itoa(c.updates), "flag=0", "realm=b2a3c4d5-0000-4000-8000-00000000beef",
		"client=c0ffee00-0000-4000-8000-000000000001", "rm=false", "t0=1700000000", "udata=" + udata, "cdata=" + cdata}
	pgbench := func(file, script string, n int, counter string) {
		if n == 0 {
			return
		}
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			fatal(err.Error())
		}
		args := []string{"-n", "-M", "prepared", "-c", "1", "-t", strconv.Itoa(n), "-f", path, "-D", counter}
		for _, v := range vars {
			args = append(args, "-D", v)
		}
		run("pgbench", append(args, *dsn)...)
	}
	t0 := time.Now()
	mustExec(db, "CHECKPOINT")
	pgbench("login.sql", login, c.logins, "k=0")
	plain := c.updates - c.coarseUpd
	pgbench("refresh.sql", refresh("rt_update_user_session"), plain, "k=0")
	pgbench("refresh-coarse.sql", refresh("rt_update_user_session_coarse"), c.coarseUpd, "k="+strconv.Itoa(plain))
	pgbench("logout.sql", logout, c.logouts, "j=0")
	return time.Since(t0)
}
