package collectors_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	_ "github.com/writeamp/writeamp/dialects/oracle"
	_ "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

// resolveMock answers the scope queries the way the server would: nvarchar
// and VARCHAR2 names as strings, the collation probe as an int.
func resolveMock(t *testing.T, s dialects.Server, caseSensitive *int, schemas []string, tables [][2]string, sc collectors.Scope) (collectors.Scope, error) {
	t.Helper()
	db, mock := mocksql.New(t)
	if caseSensitive != nil {
		mock.ExpectQuery(mocksql.SQL(t, s.Dialect, "identifier_case", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{""}).AddRow(*caseSensitive))
	}
	rs := sqlmock.NewRows([]string{"name"})
	for _, n := range schemas {
		rs.AddRow(n)
	}
	mock.ExpectQuery(mocksql.SQL(t, s.Dialect, "scope_schemas", s.VersionNum)).WillReturnRows(rs)
	rt := sqlmock.NewRows([]string{"schema", "table"})
	for _, n := range tables {
		rt.AddRow(n[0], n[1])
	}
	mock.ExpectQuery(mocksql.SQL(t, s.Dialect, "scope_tables", s.VersionNum)).WillReturnRows(rt)
	return collectors.Resolve(context.Background(), db, s, sc)
}

func TestResolveOnSQLServerFollowsTheCollation(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: "sqlserver", VersionNum: 15}
	schemas := []string{"dbo", "Sales"}
	tables := [][2]string{{"dbo", "Orders"}, {"Sales", "Orders"}}
	ci, cs := 0, 1
	got, err := resolveMock(t, s, &ci, schemas, tables, collectors.Scope{Schemas: []string{"sales"}, Tables: []string{"[orders]"}})
	if err != nil || !slices.Equal(got.Schemas, []string{"Sales"}) || !slices.Equal(got.Tables, []string{"Sales.Orders"}) || !got.Exact {
		t.Errorf("case-insensitive collation: %+v %v", got, err)
	}
	_, err = resolveMock(t, s, &cs, schemas, tables, collectors.Scope{Schemas: []string{"sales"}})
	var se *collectors.ScopeError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "Sales") || !strings.Contains(err.Error(), "case-sensitively") {
		t.Errorf("case-sensitive collation: %v", err)
	}
}

func TestResolveOnOracleFoldsToUpperCase(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: "oracle", VersionNum: 190000}
	schemas := []string{"APP", "Mixed"}
	tables := [][2]string{{"APP", "JOBS"}, {"Mixed", "jobs"}}
	got, err := resolveMock(t, s, nil, schemas, tables, collectors.Scope{Tables: []string{"app.jobs", `"Mixed"."jobs"`}})
	if err != nil || !slices.Equal(got.Tables, []string{"APP.JOBS", "Mixed.jobs"}) {
		t.Errorf("%+v %v", got, err)
	}
	_, err = resolveMock(t, s, nil, schemas, tables, collectors.Scope{Schemas: []string{"mixed"}})
	if err == nil || !strings.Contains(err.Error(), "upper case") || !strings.Contains(err.Error(), "Mixed") {
		t.Errorf("unquoted mixed: %v", err)
	}
}
