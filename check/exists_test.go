package check

import (
	"context"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/sqlparse"
)

// On MySQL 8 (never run here) IF [NOT] EXISTS is answered by the same
// information_schema queries as on MariaDB: rows shaped as MySQL 8 returns
// them (COUNT(*) a BIGINT, SUM(…) a DECIMAL the driver hands over as
// text). Each object is asked once, before anything is applied; the undo
// computed afterwards reuses the answers and asks nothing new.
func TestExistenceOnMySQL8(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: "mysql", Flavor: "mysql", VersionNum: 80036, Database: "app"}
	db, mock := mocksql.New(t)
	q := func(name string) string { return mocksql.SQL(t, "mysql", name, s.VersionNum) }
	row := func(loose int64, exact string) *sqlmock.Rows {
		return sqlmock.NewRows([]string{"COUNT(*)", "COALESCE(SUM(BINARY TABLE_NAME = ?), 0)"}).AddRow(loose, []byte(exact))
	}
	mock.ExpectQuery(q("exists_table")).WithArgs("old_jobs", "", "old_jobs").WillReturnRows(row(0, "0"))
	mock.ExpectQuery(q("exists_table")).WithArgs("audit", "", "audit").WillReturnRows(row(1, "1"))
	mock.ExpectQuery(q("exists_procedure")).WithArgs("touch", "app", "touch").WillReturnRows(row(0, "0"))
	mock.ExpectQuery(q("exists_column")).WithArgs("NOTE", "", "NOTE", "jobs").WillReturnRows(row(1, "0"))

	dir := t.TempDir()
	mig := loaded(t, "mysql", "--migration", put(t, dir, "0002_x.sql", "DROP TABLE IF EXISTS old_jobs;\n"+
		"CREATE TABLE IF NOT EXISTS audit (id int);\n"+
		"DROP PROCEDURE IF EXISTS app.touch;\n"+
		"CREATE PROCEDURE app.touch() SELECT 1;\n"+
		"ALTER TABLE jobs ADD COLUMN IF NOT EXISTS NOTE text;"))
	ce := newCatalogExistence(context.Background(), db, s)
	p, err := restore.PlanUndo("mysql", nil, mig, nil, sqlparse.NewExistence("mysql", ce.exists))
	if err != nil {
		t.Fatal(err)
	}
	ce.freeze()
	// The plan's undo, as if every statement was applied, inverts with
	// the existence read before the freeze.
	if undo := p.Statements(&restore.Env{Server: s}); strings.Join(undo, "; ") != "DROP PROCEDURE `app`.`touch`" {
		t.Fatalf("undo %q", undo)
	}

	// A table whose name differs only in letter case is ambiguous (it
	// depends on lower_case_table_names): refused, naming why.
	mock.ExpectQuery(q("exists_table")).WithArgs("Audit", "", "Audit").WillReturnRows(row(1, "0"))
	amb := loaded(t, "mysql", "--migration", put(t, dir, "0003_y.sql", "CREATE TABLE IF NOT EXISTS Audit (id int);"))
	ce = newCatalogExistence(context.Background(), db, s)
	_, err = restore.PlanUndo("mysql", nil, amb, nil, sqlparse.NewExistence("mysql", ce.exists))
	if err == nil || !strings.Contains(err.Error(), "lower_case_table_names") || !strings.Contains(err.Error(), "nothing was applied") {
		t.Fatalf("ambiguous name: %v", err)
	}
	// After the freeze nothing new is asked.
	ce.freeze()
	if _, err := ce.exists(sqlparse.Object{Kind: sqlparse.ObjTable, Name: "other"}); err == nil {
		t.Fatal("a frozen existence asked the database")
	}
}
