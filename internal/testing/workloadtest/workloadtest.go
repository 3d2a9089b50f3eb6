package workloadtest

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/golden"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// RunID is the run id every rendered schema name carries.
const RunID = "deadbeef"

// Harness is one dialect's workload SQL under test.
type Harness struct {
	Dialect     string         // registry name
	Title       string         // for golden file headers ("SQL Server")
	Placeholder *regexp.Regexp // one bind parameter, the number in group 1 (`@p(\d+)\b`)
	RememberMe  driver.Value   // REMEMBER_ME as the driver returns it (bit: bool; NUMBER(1): int64)
}

// Schema is the workload's schema name for a variant.
func Schema(variant string) string { return refreshtoken.SchemaPrefix + RunID + "_" + variant }

// SQL is a workload block as a version and variant gets it.
func (h Harness) SQL(t *testing.T, name string, vn int, variant string) string {
	return h.SQLWith(t, name, vn, variant, refreshtoken.DefaultParams())
}

// SQLWith is SQL for a run with these parameters.
func (h Harness) SQLWith(t *testing.T, name string, vn int, variant string, p refreshtoken.Params) string {
	t.Helper()
	s, err := queries.Get(h.Dialect, name, vn)
	if err != nil {
		t.Fatal(err)
	}
	return refreshtoken.Render(s, Schema(variant), p)
}

// Index is one CREATE INDEX of the workload's DDL, as its text states it.
type Index struct {
	Schema, Table, Keys, Include, Where, With string
}

var createIndex = regexp.MustCompile(`^CREATE INDEX (?:(\w+)\.)?(\w+) ON (?:\w+)\.(\w+) \(([^()]*)\)(?: INCLUDE \(([^()]*)\))?(?: WHERE (.+?))?(?: WITH \((.*)\))?$`)

// Indexes are the indexes a variant's DDL (and, with keep, the separately
// created IDX_OFFLINE_CSS_BY_USER_SESSION_AND_OFFLINE) creates, by name.
func (h Harness) Indexes(t *testing.T, vn int, variant string, p refreshtoken.Params) map[string]Index {
	t.Helper()
	stmts := refreshtoken.Statements(h.SQLWith(t, "rt_ddl_"+variant, vn, variant, p))
	if variant == "coarse" && p.CSSUserSessionIndex == "keep" {
		stmts = append(stmts, h.SQLWith(t, "rt_css_user_session_index", vn, variant, p))
	}
	out := map[string]Index{}
	for _, st := range stmts {
		if !strings.HasPrefix(st, "CREATE INDEX") {
			continue
		}
		m := createIndex.FindStringSubmatch(st)
		if m == nil {
			t.Fatalf("cannot read %q", st)
		}
		out[m[2]] = Index{Schema: m[1], Table: m[3], Keys: m[4], Include: m[5], Where: m[6], With: m[7]}
	}
	return out
}

// Render is every workload block as a version and variant gets it.
func (h Harness) Render(t *testing.T, vn int, variant string) string {
	var names []string
	seen := map[string]bool{}
	for _, b := range queries.All() {
		if b.Dialect == h.Dialect && (strings.HasPrefix(b.Name, "rt_") || strings.HasPrefix(b.Name, "owned_")) && !seen[b.Name] {
			seen[b.Name] = true
			names = append(names, b.Name)
		}
	}
	sort.Strings(names)
	var out strings.Builder
	fmt.Fprintf(&out, "-- %s version number %d, variant %s\n", h.Title, vn, variant)
	for _, n := range names {
		if strings.HasPrefix(n, "rt_ddl_") && n != "rt_ddl_"+variant {
			continue
		}
		if _, err := queries.Get(h.Dialect, n, vn); err != nil {
			fmt.Fprintf(&out, "\n-- %s: none for this version\n", n)
			continue
		}
		fmt.Fprintf(&out, "\n-- %s\n", n)
		if strings.HasPrefix(n, "rt_ddl_") {
			for i, st := range refreshtoken.Statements(h.SQL(t, n, vn, variant)) {
				fmt.Fprintf(&out, "-- statement %d\n%s\n", i+1, st)
			}
			continue
		}
		out.WriteString(h.SQL(t, n, vn, variant) + "\n")
	}
	return out.String()
}

// Golden compares Render with testdata/<file>_<variant>.golden for each
// version (go test -update rewrites them: internal/golden).
func (h Harness) Golden(t *testing.T, versions map[string]int) {
	for file, vn := range versions {
		for _, variant := range refreshtoken.Variants {
			golden.Check(t, file+"_"+variant+".golden", []byte(h.Render(t, vn, variant)))
		}
	}
}

// argCounts are the arguments refreshtoken (and workloads/owned, for the
// owned_ blocks) passes to each statement.
var argCounts = map[string]int{
	"owned_marker_insert": 6, "owned_schema_lock": 1, "owned_schema_unlock": 1, "owned_marker_read_legacy": 0, "rt_select_user_session": 4, "rt_insert_user_session_baseline": 8, "rt_insert_user_session_coarse": 10,
	"rt_insert_client_session": 6, "rt_select_client_sessions": 2, "rt_lock_user_session_skip_locked": 2,
	"rt_lock_client_session_skip_locked": 3, "rt_update_user_session": 5, "rt_update_user_session_coarse": 6,
	"rt_update_client_session": 6, "rt_delete_client_session": 4, "rt_lock_user_session": 2, "rt_delete_user_session": 3,
	"owned_list_schemas": 0, "owned_create_schema": 0, "owned_drop_schema": 0, "owned_marker_create": 0, "owned_marker_read": 0,
	"rt_css_user_session_index": 0,
}

// CheckPlaceholders: each statement binds exactly parameters 1..N for the N
// arguments the workload passes, in that order in the text (MySQL's "?" and
// go-ora bind by position, so a statement must read its arguments in order).
func (h Harness) CheckPlaceholders(t *testing.T, vn int) {
	for _, name := range append([]string{"rt_insert_user_session_baseline", "rt_insert_user_session_coarse"}, refreshtoken.StatementNames...) {
		if _, ok := argCounts[name]; !ok {
			t.Errorf("the workload uses %s, argCounts does not know it", name)
		}
	}
	for name, n := range argCounts {
		var seq []string
		for _, m := range h.Placeholder.FindAllStringSubmatch(h.SQL(t, name, vn, "baseline"), -1) {
			seq = append(seq, m[1])
		}
		want := make([]string, n)
		for i := range want {
			want[i] = fmt.Sprint(i + 1)
		}
		if strings.Join(seq, ",") != strings.Join(want, ",") {
			t.Errorf("%s binds parameters %v, the workload passes %d in order", name, seq, n)
		}
	}
}

// MockRun runs refreshtoken's Prepare, one login, two refreshes and a
// logout, and Cleanup against a mock that accepts exactly this dialect's
// statements in order, with the workload's arguments. The first refresh lands
// in the login's second and must send nothing at all (no transaction either).
func (h Harness) MockRun(t *testing.T, vn int) {
	srv := dialects.Server{Dialect: h.Dialect, VersionNum: vn}
	d, ok := dialects.Get(h.Dialect)
	if !ok {
		t.Fatalf("dialect %s is not registered", h.Dialect)
	}
	for _, variant := range refreshtoken.Variants {
		t.Run(variant, func(t *testing.T) {
			db, mock := mocksql.New(t)
			w := refreshtoken.New(MockParams())
			w.Owned.RunID = RunID
			target := dialects.Target{DB: db, Dialect: d, Server: srv}
			if n := h.ExpectPrepare(t, mock, vn, variant); n < 9 {
				t.Fatalf("DDL split into %d statements", n)
			}
			if err := w.Prepare(context.Background(), target, variant); err != nil {
				t.Fatal(err)
			}
			h.ExpectOps(t, mock, vn, variant)
			ops, err := w.Ops()
			if err != nil {
				t.Fatal(err)
			}
			st, err := workloads.Runner{Target: target, Concurrency: 1}.Run(context.Background(), ops)
			if err != nil {
				t.Fatal(err)
			}
			if st.Operations["logins"] != 1 || st.Operations["refreshes"] != 2 || st.Operations["logouts"] != 1 {
				t.Fatalf("operations = %v", st.Operations)
			}
			h.ExpectCleanup(t, mock, vn, variant)
			if err := w.Cleanup(context.Background(), target); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// MockParams are the parameters the mock runs use: one login, two
// refreshes (the first in the login's second), a logout.
func MockParams() refreshtoken.Params {
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.LogoutPercent = 1, 2, 100
	return p
}

// ExpectPrepare expects Prepare of variant: the schema's lock, the list of
// schemas, the schema, its marker and the DDL; it returns the number of DDL
// statements.
func (h Harness) ExpectPrepare(t *testing.T, mock sqlmock.Sqlmock, vn int, variant string) int {
	t.Helper()
	sql := func(name string) string { return h.SQL(t, name, vn, variant) }
	anyArg := sqlmock.AnyArg()
	ok := sqlmock.NewResult(0, 1)
	h.expectLock(mock, sql("owned_schema_lock"), "writeamp:writeamp_rt_"+RunID+"_"+variant, true)
	mock.ExpectQuery(sql("owned_list_schemas")).WillReturnRows(sqlmock.NewRows([]string{"name"}))
	mock.ExpectExec(sql("owned_create_schema")).WillReturnResult(ok)
	mock.ExpectExec(sql("owned_marker_create")).WillReturnResult(ok)
	mock.ExpectExec(sql("owned_marker_insert")).WithArgs(RunID, anyArg, anyArg, anyArg, "session", 0).WillReturnResult(ok)
	ddl := refreshtoken.Statements(sql("rt_ddl_" + variant))
	for _, st := range ddl {
		mock.ExpectExec(st).WillReturnResult(ok)
	}
	return len(ddl)
}

// ExpectOps expects the statements of MockParams' operations: the login,
// the second refresh (the first sends nothing) and the logout.
func (h Harness) ExpectOps(t *testing.T, mock sqlmock.Sqlmock, vn int, variant string) {
	t.Helper()
	sql := func(name string) string { return h.SQL(t, name, vn, variant) }
	anyArg := sqlmock.AnyArg()
	ok := sqlmock.NewResult(0, 1)
	insert := []driver.Value{anyArg, anyArg, anyArg, anyArg, anyArg, anyArg, anyArg, anyArg}
	if variant == "coarse" {
		insert = append(insert, anyArg, anyArg)
	}
	// Rows as the servers return them: strings for the varchar keys, NULL
	// BROKER_SESSION_ID, int64 numbers, REMEMBER_ME as the dialect's type.
	id, client := "1b1f5c1e-6a2b-4c7e-9d1a-0123456789ab", "c0ffee00-0000-4000-8000-000000000001"
	version := func(v int64) *sqlmock.Rows { return sqlmock.NewRows([]string{"version"}).AddRow(v) }
	userCols := []string{"user_session_id", "realm_id", "user_id", "created_on", "last_session_refresh", "broker_session_id", "version", "offline_flag", "data", "remember_me"}
	userRow := func(v int64) *sqlmock.Rows {
		return sqlmock.NewRows(userCols).AddRow(id, "b2a3c4d5-0000-4000-8000-00000000beef", "user-0", refreshtoken.Epoch, refreshtoken.Epoch, nil, v, "0", `{"state":"LOGGED_IN"}`, h.RememberMe)
	}
	clientRows := func(v int64) *sqlmock.Rows {
		return sqlmock.NewRows([]string{"user_session_id", "client_id", "client_storage_provider", "external_client_id", "timestamp", "version", "offline_flag", "data"}).
			AddRow(id, client, "local", "local", refreshtoken.Epoch, v, "0", `{"authMethod":"openid-connect"}`)
	}
	t0, t2 := refreshtoken.Epoch, refreshtoken.Epoch+2
	// login
	mock.ExpectBegin()
	mock.ExpectQuery(sql("rt_select_user_session")).WithArgs("0", anyArg, anyArg, anyArg).WillReturnRows(sqlmock.NewRows(userCols))
	mock.ExpectExec(sql("rt_insert_user_session_" + variant)).WithArgs(insert...).WillReturnResult(ok)
	mock.ExpectExec(sql("rt_insert_client_session")).WithArgs(anyArg, anyArg, "0", t0, anyArg, anyArg).WillReturnResult(ok)
	mock.ExpectCommit()
	// the second refresh, two seconds later: lock both rows, load, update both
	mock.ExpectBegin()
	mock.ExpectQuery(sql("rt_lock_user_session_skip_locked")).WithArgs("0", anyArg).WillReturnRows(version(0))
	mock.ExpectQuery(sql("rt_lock_client_session_skip_locked")).WithArgs(anyArg, "0", anyArg).WillReturnRows(version(0))
	mock.ExpectQuery(sql("rt_select_user_session")).WithArgs("0", anyArg, anyArg, anyArg).WillReturnRows(userRow(0))
	mock.ExpectQuery(sql("rt_select_client_sessions")).WithArgs("0", anyArg).WillReturnRows(clientRows(0))
	mock.ExpectExec(sql("rt_update_user_session")).WithArgs(t2, int64(1), "0", anyArg, int64(0)).WillReturnResult(ok)
	mock.ExpectExec(sql("rt_update_client_session")).WithArgs(t2, int64(1), anyArg, "0", anyArg, int64(0)).WillReturnResult(ok)
	mock.ExpectCommit()
	// logout: lock both, delete the client session, lock and delete the user session, VERSION checked
	mock.ExpectBegin()
	mock.ExpectQuery(sql("rt_lock_user_session_skip_locked")).WithArgs("0", anyArg).WillReturnRows(version(1))
	mock.ExpectQuery(sql("rt_lock_client_session_skip_locked")).WithArgs(anyArg, "0", anyArg).WillReturnRows(version(1))
	mock.ExpectQuery(sql("rt_select_client_sessions")).WithArgs("0", anyArg).WillReturnRows(clientRows(1))
	mock.ExpectExec(sql("rt_delete_client_session")).WithArgs(anyArg, "0", anyArg, int64(1)).WillReturnResult(ok)
	mock.ExpectQuery(sql("rt_lock_user_session")).WithArgs("0", anyArg).WillReturnRows(userRow(1))
	mock.ExpectExec(sql("rt_delete_user_session")).WithArgs("0", anyArg, int64(1)).WillReturnResult(ok)
	mock.ExpectCommit()
}

// ExpectCleanup expects Cleanup: the schema dropped, its lock released.
func (h Harness) ExpectCleanup(t *testing.T, mock sqlmock.Sqlmock, vn int, variant string) {
	t.Helper()
	sql := func(name string) string { return h.SQL(t, name, vn, variant) }
	ok := sqlmock.NewResult(0, 1)
	mock.ExpectExec(sql("owned_drop_schema")).WillReturnResult(ok)
	mock.ExpectExec(sql("owned_schema_unlock")).WithArgs("writeamp:writeamp_rt_" + RunID + "_" + variant).WillReturnResult(ok)
}

// expectLock expects the schema lock to be asked for: a row of 1 (taken) or
// 0 (held by another session), or for Oracle's PL/SQL block no row and, when
// held, ORA-20001 as the block raises it.
func (h Harness) expectLock(mock sqlmock.Sqlmock, text, name string, taken bool) {
	if h.Dialect == "oracle" {
		e := mock.ExpectExec(text).WithArgs(name)
		if taken {
			e.WillReturnResult(sqlmock.NewResult(0, 0))
		} else {
			e.WillReturnError(errors.New("ORA-20001: writeamp: lock " + name + " is held by another session"))
		}
		return
	}
	v := 0
	if taken {
		v = 1
	}
	// GET_LOCK and the CASE expressions return an integer (BIGINT, int).
	mock.ExpectQuery(text).WithArgs(name).WillReturnRows(sqlmock.NewRows([]string{"taken"}).AddRow(int64(v)))
}

// MockSurvey plays the leftovers a run finds at its start: a schema whose
// run is gone (lock free: dropped), one in use (lock held), one kept with
// --keep, one from a writeamp without locks and one without a marker; only
// the first is dropped, and the lock statements are this dialect's.
func (h Harness) MockSurvey(t *testing.T, vn int) {
	srv := dialects.Server{Dialect: h.Dialect, VersionNum: vn}
	d, ok := dialects.Get(h.Dialect)
	if !ok {
		t.Fatalf("dialect %s is not registered", h.Dialect)
	}
	db, mock := mocksql.New(t)
	name := func(id string) string {
		n := "writeamp_rt_" + id + "_baseline"
		if h.Dialect == "oracle" {
			n = strings.ToUpper(n)
		}
		return n
	}
	sql := func(stmt, schema string) string {
		return strings.ReplaceAll(h.SQL(t, stmt, vn, "baseline"), "writeamp_rt_"+RunID+"_baseline", schema)
	}
	gone, busy, kept, old, alien := name("0000dead"), name("0000b05y"), name("0000keep"), name("000001d0"), name("0a11e000")
	rows := sqlmock.NewRows([]string{"name"})
	for _, n := range []string{gone, busy, kept, old, alien} {
		rows.AddRow(n)
	}
	mock.ExpectQuery(sql("owned_list_schemas", "")).WillReturnRows(rows)
	cols := []string{"run_id", "pid", "host", "started", "lock_kind", "kept"}
	marker := func(schema string, keep int) {
		mock.ExpectQuery(sql("owned_marker_read", schema)).WillReturnRows(sqlmock.NewRows(cols).AddRow("r-"+schema[12:16], 42, "other-host", "2026-11-30T10:00:00Z", "session", keep))
	}
	lock := func(schema string) string { return "writeamp:" + strings.ToLower(schema) }
	marker(gone, 0)
	h.expectLock(mock, sql("owned_schema_lock", gone), lock(gone), true)
	mock.ExpectExec(sql("owned_drop_schema", gone)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(sql("owned_schema_unlock", gone)).WithArgs(lock(gone)).WillReturnResult(sqlmock.NewResult(0, 0))
	marker(busy, 0)
	h.expectLock(mock, sql("owned_schema_lock", busy), lock(busy), false)
	marker(kept, 1)
	h.expectLock(mock, sql("owned_schema_lock", kept), lock(kept), true)
	mock.ExpectExec(sql("owned_schema_unlock", kept)).WithArgs(lock(kept)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectQuery(sql("owned_marker_read", old)).WillReturnError(errors.New("invalid column name 'lock_kind'"))
	mock.ExpectQuery(sql("owned_marker_read_legacy", old)).WillReturnRows(sqlmock.NewRows([]string{"run_id", "pid", "host"}).AddRow("r-old", 7, "h"))
	mock.ExpectQuery(sql("owned_marker_read", alien)).WillReturnError(errors.New("table or view does not exist"))
	mock.ExpectQuery(sql("owned_marker_read_legacy", alien)).WillReturnError(errors.New("table or view does not exist"))

	w := refreshtoken.New(refreshtoken.DefaultParams())
	dropped, left, err := w.CleanLeftovers(context.Background(), dialects.Target{DB: db, Dialect: d, Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0] != gone {
		t.Errorf("dropped %v, want only %s", dropped, gone)
	}
	all := strings.Join(left, "\n")
	for _, want := range []string{busy + " (in use", kept + " (kept", old + " (unlocked", alien + " (not ours"} {
		if !strings.Contains(all, want) {
			t.Errorf("left alone should list %q:\n%s", want, all)
		}
	}
}
