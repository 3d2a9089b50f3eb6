package oracle_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const runID = "deadbeef"

// statements splits a DDL block the way the workload does: on ";" at line end.
func statements(block string) []string {
	var out []string
	for _, s := range strings.Split(block, ";\n") {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func schema(variant string) string { return refreshtoken.SchemaPrefix + runID + "_" + variant }

func rt(t *testing.T, name string, vn int, variant string) string {
	t.Helper()
	s, err := queries.Get(ora.Name, name, vn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(s, "{{schema}}", schema(variant))
}

// render is every workload block as a version and variant gets it.
func render(t *testing.T, vn int, variant string) string {
	var names []string
	seen := map[string]bool{}
	for _, b := range queries.All() {
		if b.Dialect == ora.Name && strings.HasPrefix(b.Name, "rt_") && !seen[b.Name] {
			seen[b.Name] = true
			names = append(names, b.Name)
		}
	}
	sort.Strings(names)
	var out strings.Builder
	fmt.Fprintf(&out, "-- Oracle version number %d, variant %s\n", vn, variant)
	for _, n := range names {
		if strings.HasPrefix(n, "rt_ddl_") && n != "rt_ddl_"+variant {
			continue
		}
		if _, err := queries.Get(ora.Name, n, vn); err != nil {
			fmt.Fprintf(&out, "\n-- %s: none for this version\n", n)
			continue
		}
		fmt.Fprintf(&out, "\n-- %s\n", n)
		if strings.HasPrefix(n, "rt_ddl_") {
			for i, st := range statements(rt(t, n, vn, variant)) {
				fmt.Fprintf(&out, "-- statement %d\n%s\n", i+1, st)
			}
			continue
		}
		out.WriteString(rt(t, n, vn, variant) + "\n")
	}
	return out.String()
}

func TestWorkloadGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		vn   int
	}{{"refresh_token_19c", 192100}, {"refresh_token_23ai", 230400}} {
		for _, variant := range refreshtoken.Variants {
			got := render(t, tc.vn, variant)
			path := filepath.Join("testdata", tc.file+"_"+variant+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the rendered workload SQL (go test -update after checking the change)", path)
			}
		}
	}
}

func TestOracleDDLAsKeycloakCreatesIt(t *testing.T) {
	for _, variant := range refreshtoken.Variants {
		ddl := rt(t, "rt_ddl_"+variant, 192100, variant)
		for _, want := range []string{"data CLOB", "remember_me NUMBER(1)", "VARCHAR2(36)"} {
			if !strings.Contains(ddl, want) {
				t.Errorf("%s DDL lacks %q", variant, want)
			}
		}
		if strings.Contains(ddl, "WHERE") || strings.Contains(ddl, "OPTIMIZE_FOR_SEQUENTIAL_KEY") {
			t.Errorf("%s: Oracle has no filtered indexes", variant)
		}
	}
	if !strings.Contains(rt(t, "rt_create_schema", 192100, "baseline"), "CREATE USER "+schema("baseline")+" NO AUTHENTICATION") ||
		!strings.Contains(rt(t, "rt_create_schema", 192100, "baseline"), "QUOTA UNLIMITED") {
		t.Error("the schema must be a NO AUTHENTICATION user with a quota")
	}
	if rt(t, "rt_drop_schema", 192100, "baseline") != "DROP USER "+schema("baseline")+" CASCADE" {
		t.Error("drop")
	}
	// Before 18c there is no NO AUTHENTICATION: no DDL, so Prepare fails before creating anything.
	if _, err := queries.Get(ora.Name, "rt_ddl_baseline", 120200); err == nil {
		t.Error("12.2 must get no workload DDL")
	}
}

// TestPlaceholdersMatchTheWorkloadsArguments: each statement uses exactly
// @p1..@pN for the N arguments refreshtoken passes.
func TestPlaceholdersMatchTheWorkloadsArguments(t *testing.T) {
	args := map[string]int{
		"rt_marker_insert": 4, "rt_select_user_session": 3, "rt_insert_user_session_baseline": 8, "rt_insert_user_session_coarse": 10,
		"rt_select_client_session": 3, "rt_insert_client_session": 6, "rt_select_client_sessions": 2, "rt_update_user_session": 4,
		"rt_update_user_session_coarse": 5, "rt_update_client_session": 5, "rt_delete_client_sessions": 2, "rt_lock_user_session": 2,
		"rt_delete_user_session": 2, "rt_list_schemas": 0, "rt_create_schema": 0, "rt_drop_schema": 0, "rt_marker_create": 0, "rt_marker_read": 0,
	}
	re := regexp.MustCompile(`:(\d+)\b`)
	for name, n := range args {
		got := map[string]bool{}
		for _, m := range re.FindAllStringSubmatch(rt(t, name, 192100, "baseline"), -1) {
			got[m[1]] = true
		}
		if len(got) != n {
			t.Errorf("%s uses %d distinct parameters, the workload passes %d", name, len(got), n)
		}
		for i := 1; i <= n; i++ {
			if !got[fmt.Sprint(i)] {
				t.Errorf("%s lacks :%d", name, i)
			}
		}
	}
}

func mockDB(t *testing.T) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	db, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return db, mock
}

// TestWorkloadDrivesTheseStatements runs refreshtoken's Prepare, one login,
// refresh and logout, and Cleanup against a mock that accepts exactly this
// dialect's statements in order, with the workload's argument counts.
func TestWorkloadDrivesTheseStatements(t *testing.T) {
	vn := 192100
	srv := dialects.Server{Dialect: ora.Name, VersionNum: vn}
	for _, variant := range refreshtoken.Variants {
		t.Run(variant, func(t *testing.T) {
			db, mock := mockDB(t)
			p := refreshtoken.DefaultParams()
			p.Logins, p.RefreshesPerLogin, p.LogoutPercent, p.Concurrency = 1, 1, 100, 1
			w := refreshtoken.New(p)
			w.RunID = runID
			anyArg := sqlmock.AnyArg()
			ok := sqlmock.NewResult(0, 1)

			mock.ExpectQuery(rt(t, "rt_list_schemas", vn, variant)).WillReturnRows(sqlmock.NewRows([]string{"name"}))
			mock.ExpectExec(rt(t, "rt_create_schema", vn, variant)).WillReturnResult(ok)
			mock.ExpectExec(rt(t, "rt_marker_create", vn, variant)).WillReturnResult(ok)
			mock.ExpectExec(rt(t, "rt_marker_insert", vn, variant)).WithArgs(runID, anyArg, anyArg, anyArg).WillReturnResult(ok)
			ddl := statements(rt(t, "rt_ddl_"+variant, vn, variant))
			for _, st := range ddl {
				mock.ExpectExec(st).WillReturnResult(ok)
			}
			if err := w.Prepare(context.Background(), db, srv, variant); err != nil {
				t.Fatal(err)
			}
			if len(ddl) < 9 {
				t.Fatalf("DDL split into %d statements", len(ddl))
			}

			insert := []driver.Value{anyArg, anyArg, anyArg, anyArg, anyArg, anyArg, anyArg, anyArg}
			if variant == "coarse" {
				insert = append(insert, anyArg, anyArg)
			}
			mock.ExpectBegin()
			mock.ExpectQuery(rt(t, "rt_select_user_session", vn, variant)).WithArgs(anyArg, "0", anyArg).WillReturnRows(sqlmock.NewRows([]string{"version", "l", "c"}))
			mock.ExpectExec(rt(t, "rt_insert_user_session_"+variant, vn, variant)).WithArgs(insert...).WillReturnResult(ok)
			mock.ExpectQuery(rt(t, "rt_select_client_session", vn, variant)).WithArgs(anyArg, anyArg, "0").WillReturnRows(sqlmock.NewRows([]string{"version"}))
			mock.ExpectExec(rt(t, "rt_insert_client_session", vn, variant)).WithArgs(anyArg, anyArg, "0", anyArg, anyArg, anyArg).WillReturnResult(ok)
			mock.ExpectCommit()
			mock.ExpectBegin()
			mock.ExpectQuery(rt(t, "rt_select_user_session", vn, variant)).WithArgs(anyArg, "0", anyArg).
				WillReturnRows(sqlmock.NewRows([]string{"version", "l", "c"}).AddRow(0, refreshtoken.Epoch, refreshtoken.Epoch))
			mock.ExpectQuery(rt(t, "rt_select_client_sessions", vn, variant)).WithArgs(anyArg, "0").
				WillReturnRows(sqlmock.NewRows([]string{"client_id", "version"}).AddRow("c0ffee00-0000-4000-8000-000000000001", 0))
			mock.ExpectExec(rt(t, "rt_update_user_session", vn, variant)).WithArgs(anyArg, anyArg, "0", anyArg).WillReturnResult(ok)
			mock.ExpectExec(rt(t, "rt_update_client_session", vn, variant)).WithArgs(anyArg, anyArg, anyArg, "0", anyArg).WillReturnResult(ok)
			mock.ExpectCommit()
			mock.ExpectBegin()
			mock.ExpectExec(rt(t, "rt_delete_client_sessions", vn, variant)).WithArgs(anyArg, "0").WillReturnResult(ok)
			mock.ExpectQuery(rt(t, "rt_lock_user_session", vn, variant)).WithArgs(anyArg, "0").WillReturnRows(sqlmock.NewRows([]string{"version"}).AddRow(1))
			mock.ExpectExec(rt(t, "rt_delete_user_session", vn, variant)).WithArgs(anyArg, "0").WillReturnResult(ok)
			mock.ExpectCommit()
			st, err := w.Run(context.Background(), db, srv, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Operations["logins"] != 1 || st.Operations["refreshs"]+st.Operations["refreshes"] != 1 || st.Operations["logouts"] != 1 {
				t.Fatalf("operations = %v", st.Operations)
			}

			mock.ExpectQuery(rt(t, "rt_marker_read", vn, variant)).WillReturnRows(sqlmock.NewRows([]string{"run_id", "pid", "host"}).AddRow(runID, 1, "h"))
			mock.ExpectExec(rt(t, "rt_drop_schema", vn, variant)).WillReturnResult(ok)
			if err := w.Cleanup(context.Background(), db); err != nil {
				t.Fatal(err)
			}
		})
	}
}
