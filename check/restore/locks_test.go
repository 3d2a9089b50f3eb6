package restore

import (
	"context"
	"database/sql/driver"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
)

// The blockers' rows as SQL Server (nvarchar session id, login, status, the
// text of the last batch) and Oracle (TO_CHAR(sid), username, status,
// program; a background session's NULL username is COALESCEd to a blank) return them.
func TestBlockersAreNamedFromTheServersRows(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dialect string
		version int
		row     []driver.Value
		want    string
	}{
		{"sqlserver", 160000, []driver.Value{"61", "app_user", "sleeping", "BEGIN TRAN; UPDATE dbo.jobs SET v = 1 WHERE id = 1"},
			"session 61 (user app_user, sleeping): BEGIN TRAN; UPDATE dbo.jobs SET v = 1 WHERE id = 1"},
		{"oracle", 190000, []driver.Value{"143", " ", "INACTIVE", "sqlplus@db1 (TNS V1-V3)"},
			"session 143 (user -, INACTIVE): sqlplus@db1 (TNS V1-V3)"},
	} {
		db, mock := mocksql.New(t)
		q, err := queries.Get(c.dialect, "blocking_sessions", c.version)
		if err != nil {
			t.Fatal(err)
		}
		mock.ExpectQuery(q).WithArgs("57").WillReturnRows(sqlmock.NewRows([]string{"a", "b", "c", "d"}).AddRow(c.row...))
		got, err := readBlockers(context.Background(), db, q, "57")
		if err != nil || len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %q, %v; want %q", c.dialect, got, err, c.want)
		}
	}
}
