package check

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

func gateOn(dialect string, version int) *Gate {
	s := dialects.Server{Dialect: dialect, VersionNum: version, Database: "app"}
	return &Gate{Window: &measure.Window{Target: dialects.Target{Server: s}}}
}

func migrationFile(t *testing.T, dialect, text string) []sqlfile.File {
	t.Helper()
	st, err := sqlparse.Split(dialect, text)
	if err != nil {
		t.Fatal(err)
	}
	return []sqlfile.File{{Path: "m.sql", Flag: "--migration", Statements: st}}
}

// expectLockTimeout is what check sends before the first statement of a
// migration or an undo: --lock-timeout (its default) and the session's id.
func expectLockTimeout(t *testing.T, mock sqlmock.Sqlmock, dialect string, version int) {
	t.Helper()
	set := strings.NewReplacer("{{ms}}", "10000", "{{s}}", "10").Replace(sqlOf(t, dialect, "lock_timeout", version, ""))
	mock.ExpectExec(set).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectQuery(sqlOf(t, dialect, "check_session_id", version, "")).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow("57"))
}

func sqlOf(t *testing.T, dialect, name string, version int, schema string) string {
	t.Helper()
	q, err := queries.Get(dialect, name, version)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(q, "{{schema}}", schema)
}

const wl = "writeamp_rt_0a1b2c3d_baseline"

// The built-in workload's migration is applied inside the workload's own
// schema on SQL Server, Oracle and MySQL/MariaDB exactly as gate.apply does
// it inside Prepare (only PostgreSQL and MariaDB run live here): each
// dialect's way in, the user's statement with its unqualified names, and
// the way back, also when the migration fails.
func TestApplyInsideTheWorkloadSchema(t *testing.T) {
	t.Parallel()
	const idx = "CREATE INDEX idx_lsr ON offline_user_session (last_session_refresh)"
	boom := errors.New("the migration failed")
	for _, c := range []struct {
		name    string
		dialect string
		version int
		expect  func(mock sqlmock.Sqlmock, fail bool)
	}{
		{"sqlserver", "sqlserver", 160000, func(mock sqlmock.Sqlmock, fail bool) {
			mock.ExpectExec(sqlOf(t, "sqlserver", "schema_user_create", 160000, wl)).WillReturnResult(sqlmock.NewResult(0, 0))
			mock.ExpectExec("EXECUTE AS USER = N'" + wl + "'").WillReturnResult(sqlmock.NewResult(0, 0))
			expectLockTimeout(t, mock, "sqlserver", 160000)
			if fail {
				mock.ExpectExec(idx).WillReturnError(boom)
				mock.ExpectExec("IF @@TRANCOUNT > 0 ROLLBACK").WillReturnResult(sqlmock.NewResult(0, 0))
			} else {
				mock.ExpectExec(idx).WillReturnResult(sqlmock.NewResult(0, 0))
			}
			mock.ExpectExec("REVERT").WillReturnResult(sqlmock.NewResult(0, 0))
			mock.ExpectExec("DROP USER " + wl).WillReturnResult(sqlmock.NewResult(0, 0))
		}},
		{"oracle", "oracle", 190000, func(mock sqlmock.Sqlmock, fail bool) {
			// SYS_CONTEXT returns the schema as the dictionary spells it: upper case.
			mock.ExpectQuery("SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA') FROM DUAL").WillReturnRows(sqlmock.NewRows([]string{"SYS_CONTEXT"}).AddRow("APP"))
			mock.ExpectExec("ALTER SESSION SET CURRENT_SCHEMA = " + wl).WillReturnResult(sqlmock.NewResult(0, 0))
			expectLockTimeout(t, mock, "oracle", 190000)
			if fail {
				mock.ExpectExec(idx).WillReturnError(boom)
				mock.ExpectExec("ROLLBACK").WillReturnResult(sqlmock.NewResult(0, 0))
			} else {
				mock.ExpectExec(idx).WillReturnResult(sqlmock.NewResult(0, 0))
			}
			mock.ExpectExec(`ALTER SESSION SET CURRENT_SCHEMA = "APP"`).WillReturnResult(sqlmock.NewResult(0, 0))
		}},
		{"mysql", "mysql", 1101119, func(mock sqlmock.Sqlmock, fail bool) {
			mock.ExpectQuery("SELECT DATABASE()").WillReturnRows(sqlmock.NewRows([]string{"DATABASE()"}).AddRow("app"))
			mock.ExpectExec("USE `" + wl + "`").WillReturnResult(sqlmock.NewResult(0, 0))
			expectLockTimeout(t, mock, "mysql", 1101119)
			if fail {
				mock.ExpectExec(idx).WillReturnError(boom)
				mock.ExpectExec("ROLLBACK").WillReturnResult(sqlmock.NewResult(0, 0))
			} else {
				mock.ExpectExec(idx).WillReturnResult(sqlmock.NewResult(0, 0))
			}
			mock.ExpectExec("USE `app`").WillReturnResult(sqlmock.NewResult(0, 0))
		}},
	} {
		for _, fail := range []bool{false, true} {
			db, mock := mocksql.New(t)
			c.expect(mock, fail)
			g := gateOn(c.dialect, c.version)
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			files := migrationFile(t, c.dialect, idx+";\n")
			err = g.apply(context.Background(), conn, wl, files)
			if fail != (err != nil) || fail && !errors.Is(err, boom) {
				t.Errorf("%s (fail %v): %v", c.name, fail, err)
			}
			if want := map[bool]int{false: 1, true: 0}[fail]; files[0].Applied != want {
				t.Errorf("%s (fail %v): applied %d, want %d", c.name, fail, files[0].Applied, want)
			}
			conn.Close()
			if err := mock.ExpectationsWereMet(); err != nil {
				t.Errorf("%s (fail %v): %v", c.name, fail, err)
			}
		}
	}
}

// The catalog each dialect's check reads is its exact query, its lines
// sorted, and two readings compare line by line; MySQL's scope is the DSN's
// database, passed to every part of the query.
func TestReadCatalogPerDialect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dialect string
		version int
		lines   []string
	}{
		// SQL Server's CONCAT of sysname columns is nvarchar; a column's
		// numbers are printed as CONCAT prints them.
		{"sqlserver", 160000, []string{"schema dbo", "object dbo.jobs type U parent - ", "column dbo.jobs.id #1 int(4,10,0) null 0 identity 0 computed 0",
			"index dbo.jobs.PK_jobs CLUSTERED unique 1 key 1 id included 0 descending 0 filter -"}},
		{"oracle", 190000, []string{"object JOBS type TABLE VALID", "column JOBS.ID #1 NUMBER(22,10,0) null N", "index JOBS.SYS_C008812 UNIQUE NORMAL key 1 ID ASC",
			"constraint JOBS.SYS_C008812 P ENABLED"}},
		{"mysql", 1101119, []string{"database app latin1 latin1_swedish_ci", "table app.jobs BASE TABLE InnoDB", "column app.jobs.id #1 int(11) null NO default - "}},
	} {
		db, mock := mocksql.New(t)
		q := sqlOf(t, c.dialect, "check_catalog", c.version, "")
		var args []driver.Value
		if c.dialect == "mysql" {
			for range strings.Count(q, "?") {
				args = append(args, "app")
			}
			if len(args) != 16 {
				t.Errorf("mysql: %d placeholders, want 16 (two per part but the first)", len(args))
			}
		}
		rows := sqlmock.NewRows([]string{"line"})
		for i := len(c.lines) - 1; i >= 0; i-- {
			rows.AddRow(c.lines[i])
		}
		mock.ExpectQuery(q).WithArgs(args...).WillReturnRows(rows)
		g := gateOn(c.dialect, c.version)
		got, err := restore.ReadCatalog(context.Background(), db, g.server())
		if err != nil {
			t.Fatalf("%s: %v", c.dialect, err)
		}
		for i := 1; i < len(got); i++ {
			if got[i-1] > got[i] {
				t.Errorf("%s: not sorted: %q", c.dialect, got)
			}
		}
		added, removed := got.Diff(append(restore.Catalog{"index left behind"}, got[1:]...))
		if len(added) != 1 || added[0] != "index left behind" || len(removed) != 1 || removed[0] != got[0] {
			t.Errorf("%s: diff %q %q", c.dialect, added, removed)
		}
	}
}

// expectBoundedRead is one of check's reads on a pooled session: bounded by
// --lock-timeout, read, and the bound reset before the session goes back.
func expectBoundedRead(t *testing.T, mock sqlmock.Sqlmock, dialect string, version int, read func()) {
	t.Helper()
	expectLockTimeout(t, mock, dialect, version)
	read()
	mock.ExpectExec(sqlOf(t, dialect, "lock_timeout_reset", version, "")).WillReturnResult(sqlmock.NewResult(0, 0))
}
