package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

func put(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func loaded(t *testing.T, dialect, flag string, paths ...string) []sqlfile.File {
	t.Helper()
	fs, err := sqlfile.Load(flag, paths)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlfile.Split(dialect, fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

// Each file is undone its own way: its goose Down section, the
// NAME.down.sql beside NAME.sql or NAME.up.sql, else the inverse of its
// statements; --down replaces the migration's; a file none of them covers
// refuses the check before anything runs, saying where and what to pass.
func TestPlanUndo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	goose := put(t, dir, "00001_a.sql", "-- +goose Up\nCREATE TABLE a (id int);\n-- +goose Down\nDROP TABLE a;\n")
	up := put(t, dir, "000002_b.up.sql", "ALTER TABLE a MODIFY id bigint;")
	put(t, dir, "000002_b.down.sql", "ALTER TABLE a MODIFY id int;")
	plain := put(t, dir, "0003_c.sql", "CREATE INDEX ic ON a (id);")
	put(t, dir, "0003_c.down.sql", "DROP INDEX ic ON a;")
	inv := put(t, dir, "0004_d.sql", "CREATE INDEX id2 ON a (id);")
	schema := loaded(t, "mysql", "--schema", put(t, dir, "base.sql", "CREATE TABLE s (id int);\nINSERT INTO s VALUES (1);"))
	mig := loaded(t, "mysql", "--migration", goose, up, plain, inv)
	p, err := restore.PlanUndo("mysql", schema, mig, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Describe()
	for _, want := range []string{"0004_d.sql by the inverse of its statements", "0003_c.sql by its down file " + filepath.Join(dir, "0003_c.down.sql"),
		"000002_b.up.sql by its down file " + filepath.Join(dir, "000002_b.down.sql"), "00001_a.sql by its goose Down section", "base.sql by the inverse of its statements"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan %q lacks %q", got, want)
		}
	}
	if d, err := sqlfile.LoadDown("--down", []string{dir}); err != nil || len(d) != 2 || !strings.HasSuffix(d[0].Path, "0003_c.down.sql") || !strings.HasSuffix(d[1].Path, "000002_b.down.sql") {
		t.Errorf("--down DIR: its *.down.sql, last first: %+v %v", d, err)
	}
	downs := loaded(t, "mysql", "--down", put(t, dir, "all.down", "DROP TABLE a;"))
	if p, err := restore.PlanUndo("mysql", schema, loaded(t, "mysql", "--migration", up), downs, nil); err != nil || !strings.Contains(p.Describe(), "the migration by --down") {
		t.Errorf("--down: %v %v", p, err)
	}
	bare := loaded(t, "mysql", "--migration", put(t, t.TempDir(), "x.sql", "CREATE INDEX ok ON a (id);\nUPDATE a SET id = 2;\nALTER TABLE a MODIFY id bigint;"))
	_, err = restore.PlanUndo("mysql", schema, bare, nil, nil)
	if err == nil {
		t.Fatal("a migration with an UPDATE of an existing table and an ALTER … MODIFY was not refused")
	}
	for _, want := range []string{"x.sql line 2 (UPDATE a SET id = 2): it changes data", "x.sql line 3", "--down FILE|DIR", "--clone", "--keep-migration", "nothing was applied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}
}

// A migration that failed half-way is undone as far as it went: the inverse
// of the statements that ran, the last first, and nothing else.
func TestUndoAsFarAsApplied(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	g := gateOn("mysql", 1101119)
	mig := loaded(t, "mysql", "--migration", put(t, t.TempDir(), "m.sql", "CREATE TABLE a (id int);\nCREATE INDEX ia ON a (id);\nCREATE TABLE b (id int);"))
	p, err := restore.PlanUndo("mysql", nil, mig, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mig[0].Applied = 2
	expectLockTimeout(t, mock, "mysql", 1101119)
	mock.ExpectExec("DROP INDEX `ia` ON `a`").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec("DROP TABLE `a`").WillReturnResult(sqlmock.NewResult(0, 0))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := &restore.Restoration{}
	g.env().RunUndo(context.Background(), conn, p.Migration, &restore.Target{}, r, true)
	if len(r.Ran) != 2 || len(r.Failed) != 0 || len(r.Refused) != 0 || mig[0].Applied != 0 {
		t.Errorf("restore %+v, applied %d", r, mig[0].Applied)
	}
	again := &restore.Restoration{}
	if g.env().RunUndo(context.Background(), conn, p.Migration, &restore.Target{}, again, true); len(again.Ran) != 0 {
		t.Errorf("undone twice: %q", again.Ran)
	}
}
