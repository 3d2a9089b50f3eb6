package oracle

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

func confineRE(t *testing.T, name, schema string) string {
	t.Helper()
	q, err := queries.Get(Name, name, Version19)
	if err != nil {
		t.Fatal(err)
	}
	q = strings.NewReplacer("{{user}}", schema, "{{password}}", "PASSWORD").Replace(q)
	return "^" + strings.ReplaceAll(regexp.QuoteMeta(q), "PASSWORD", `Wa[0-9a-f]{24}`) + "$"
}

// On Oracle the migration's session is the workload's own user, logged in
// with a password made for the apply step: it has that user's privileges,
// not the login's (ALTER SESSION SET CURRENT_SCHEMA would keep the login's).
// Release ends its sessions and makes the user one nobody can log in as.
func TestConfineLogsInAsTheWorkloadUser(t *testing.T) {
	s := dialects.Server{Dialect: Name, VersionNum: Version19}
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
	am.ExpectExec(confineRE(t, "confine_password", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	am.ExpectExec(confineRE(t, "confine_grant", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	wm.ExpectExec("^UPDATE KC.ACCOUNTS").WillReturnError(errors.New("ORA-00942: table or view does not exist"))
	wm.ExpectClose()
	sessions, _ := queries.Get(Name, "confine_sessions", s.VersionNum)
	am.ExpectQuery("^" + regexp.QuoteMeta(sessions) + "$").WithArgs(strings.ToUpper(schema)).WillReturnRows(sqlmock.NewRows([]string{"sid"}))
	am.ExpectExec(confineRE(t, "confine_lock", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	am.ExpectExec(confineRE(t, "confine_revoke", schema)).WillReturnResult(sqlmock.NewResult(0, 0))
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var user, password string
	c, err := Dialect{}.Confine(ctx, conn, s, schema, func(_ context.Context, u, p, _ string) (*sql.DB, error) {
		user, password = u, p
		return work, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if user != strings.ToUpper(schema) || !regexp.MustCompile(`^Wa[0-9a-f]{24}$`).MatchString(password) {
		t.Errorf("logged in as %q with %q: want the workload's user and a fresh password", user, password)
	}
	if _, err := c.Conn.ExecContext(ctx, "UPDATE KC.ACCOUNTS SET V = 1"); err == nil {
		t.Errorf("the mock should have refused the update")
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := am.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
	if err := wm.ExpectationsWereMet(); err != nil {
		t.Error(err)
	}
}

// OpenAs replaces only the user and password of an oracle:// URL.
func TestOpenAsNeedsAURL(t *testing.T) {
	_, err := Dialect{}.OpenAs(context.Background(), "kc/secret@db:1521/svc", "U", "p", "")
	if err == nil || !strings.Contains(err.Error(), "oracle://") {
		t.Errorf("want the URL form asked for, got %v", err)
	}
}
