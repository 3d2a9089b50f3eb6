package sqlfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/sqlparse"
)

func TestLoadGoose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "001_up.sql"), []byte("-- +goose Up\ncreate index i on t (a);\n-- +goose Down\ndrop index i;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "001_x.down.sql"), []byte("drop table t;"), 0o644)
	fs, err := Load("--migration", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := Split(sqlparse.Postgres, fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || len(fs[0].Statements) != 1 || fs[0].Statements[0].Text != "create index i on t (a)" {
		t.Fatalf("a goose file applies its Up section only: %+v", fs)
	}
	bad := []File{{Path: "bad.sql", Flag: "--migration", Text: "select 'open"}}
	if err := Split(sqlparse.Postgres, bad); err == nil || !strings.Contains(err.Error(), "--migration bad.sql: line 1, column 8: unterminated quoted string") {
		t.Fatalf("error: %v", err)
	}
}
