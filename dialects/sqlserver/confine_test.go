package sqlserver

import (
	"context"
	"database/sql"
	"regexp"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// confineRE is a confine block as the server gets it, the run's random user
// name matched by its shape.
func confineRE(t *testing.T, name, schema string) string {
	t.Helper()
	q, err := queries.Get(Name, name, Version2022)
	if err != nil {
		t.Fatal(err)
	}
	q = strings.NewReplacer("{{user}}", "[USER]", "{{name}}", "NAME", "{{schema}}", QuoteIdent(schema), "{{owner}}", "[dbo]").Replace(q)
	re := regexp.QuoteMeta(q)
	re = strings.ReplaceAll(re, `\[USER\]`, `\[writeamp_mig_[0-9a-f]{10}\]`)
	re = strings.ReplaceAll(re, "NAME", `writeamp_mig_[0-9a-f]{10}`)
	return "^" + re + "$"
}

// The migration's session on SQL Server impersonates a user without login
// that owns the workload's schema, WITH NO REVERT, on a connection of its
// own that is never pooled again; release gives the schema back to its
// owner and drops the user. A login without the rights gets them named.
func TestConfineImpersonatesWithNoRevert(t *testing.T) {
	s := dialects.Server{Dialect: Name, VersionNum: Version2022}
	schema := "writeamp_rt_0123abcd_baseline"
	admin, am, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherRegexp))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	work, wm, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherRegexp))
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := queries.Get(Name, "confine_owner", s.VersionNum)
	am.ExpectQuery("^" + regexp.QuoteMeta(owner) + "$").WithArgs(schema).WillReturnRows(sqlmock.NewRows([]string{"owner"}).AddRow("dbo"))
	am.ExpectExec(confineRE(t, "confine_create", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	wm.ExpectExec(confineRE(t, "confine_enter", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	wm.ExpectExec("^UPDATE dbo.accounts").WillReturnError(errPermission)
	wm.ExpectClose()
	am.ExpectExec(confineRE(t, "confine_return", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	am.ExpectExec(confineRE(t, "confine_drop", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var opened string
	open := func(ctx context.Context, user, password, database string) (*sql.DB, error) {
		opened = user + "|" + password + "|" + database
		return work, nil
	}
	c, err := Dialect{}.Confine(ctx, conn, s, schema, open)
	if err != nil {
		t.Fatal(err)
	}
	if opened != "||" {
		t.Errorf("the confined session should reconnect as the DSN's own login, got %q", opened)
	}
	if _, err := c.Conn.ExecContext(ctx, "UPDATE dbo.accounts SET v = 1"); err == nil {
		t.Errorf("the mock should have refused the update")
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := am.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
	if err := wm.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
}

// A login that may not create the user: the error names the rights, and
// what was half made is dropped.
func TestConfineWithoutRightsSaysWhich(t *testing.T) {
	s := dialects.Server{Dialect: Name, VersionNum: Version2022}
	schema := "writeamp_rt_0123abcd_baseline"
	admin, am, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherRegexp))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	owner, _ := queries.Get(Name, "confine_owner", s.VersionNum)
	am.ExpectQuery("^" + regexp.QuoteMeta(owner) + "$").WithArgs(schema).WillReturnRows(sqlmock.NewRows([]string{"owner"}).AddRow("dbo"))
	am.ExpectExec(confineRE(t, "confine_create", schema)).WillReturnError(errPermission)
	am.ExpectExec(confineRE(t, "confine_return", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	am.ExpectExec(confineRE(t, "confine_drop", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	ctx := context.Background()
	conn, _ := admin.Conn(ctx)
	defer conn.Close()
	_, err = Dialect{}.Confine(ctx, conn, s, schema, func(context.Context, string, string, string) (*sql.DB, error) {
		t.Fatal("no session may be opened")
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "ALTER ANY USER") || !strings.Contains(err.Error(), "db_owner") {
		t.Errorf("want the rights named, got %v", err)
	}
	if err := am.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
}

var errPermission = &permissionError{}

type permissionError struct{}

func (*permissionError) Error() string {
	return "mssql: The UPDATE permission was denied on the object 'accounts', database 'kc', schema 'dbo'."
}
