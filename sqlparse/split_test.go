package sqlparse

import (
	"reflect"
	"strings"
	"testing"
)

// splitCases are the texts the old hand-written splitter (check/sqltext.go)
// cut wrongly, per dialect, and the statements each server's client sends.
var splitCases = []struct {
	name, dialect, src string
	want               []string
}{
	{"pg E-string with a backslash-escaped quote", Postgres,
		"insert into notes values (E'it\\'s; fine');\nselect 1;",
		[]string{"insert into notes values (E'it\\'s; fine')", "select 1"}},
	{"pg nested block comments", Postgres,
		"/* outer /* inner; */ still comment; */ select 1; select 2",
		[]string{"select 1", "select 2"}},
	{"pg BEGIN ATOMIC body", Postgres,
		"create function f() returns int language sql begin atomic select 1; select 2; end;\nselect f();",
		[]string{"create function f() returns int language sql begin atomic select 1; select 2; end", "select f()"}},
	{"pg BEGIN ATOMIC with CASE … END inside", Postgres,
		"create procedure p(x int) language sql begin atomic insert into t values (case when x > 0 then 1 else 2 end); end; select 3",
		[]string{"create procedure p(x int) language sql begin atomic insert into t values (case when x > 0 then 1 else 2 end); end", "select 3"}},
	{"mysql backslash-escaped quote", MySQL,
		"insert into authors values ('O\\'Reilly; Tim');\nselect 1;",
		[]string{"insert into authors values ('O\\'Reilly; Tim')", "select 1"}},
	{"mysql backtick with a backslash (no escape there)", MySQL,
		"create table `a\\` (x int);\nselect 1",
		[]string{"create table `a\\` (x int)", "select 1"}},
	{"mysql DELIMITER", MySQL,
		"DELIMITER $$\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END$$\nDELIMITER ;\nCALL p();",
		[]string{"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END", "CALL p()"}},
	{"mysql routine body without DELIMITER", MySQL,
		"CREATE TRIGGER t BEFORE UPDATE ON a FOR EACH ROW BEGIN IF NEW.x > 0 THEN SET NEW.y = 1; END IF; END;\nSELECT 1",
		[]string{"CREATE TRIGGER t BEFORE UPDATE ON a FOR EACH ROW BEGIN IF NEW.x > 0 THEN SET NEW.y = 1; END IF; END", "SELECT 1"}},
	{"mysql executable comment and # comment", MySQL,
		"/*!40101 SET NAMES utf8mb4 */;\n# a comment; not a statement\nselect 1 -- x;\n;select 2--1;/*M!100100 SET @x = 1 */;",
		[]string{"/*!40101 SET NAMES utf8mb4 */", "select 1", "select 2--1", "/*M!100100 SET @x = 1 */"}},
	{"tsql GO batches, nested comments", SQLServer,
		"/* a /* b; */ c */ CREATE TABLE t (x int);\nGO\nCREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END\nGO\nDECLARE @n int = 1; UPDATE t SET x = @n;\ngo 2\n",
		[]string{"CREATE TABLE t (x int)", "CREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END",
			"DECLARE @n int = 1; UPDATE t SET x = @n;", "DECLARE @n int = 1; UPDATE t SET x = @n;"}},
	{"tsql brackets and N strings", SQLServer,
		"CREATE INDEX [ix;1] ON [dbo].[t] ([a]]b]); INSERT t VALUES (N'x;y')",
		[]string{"CREATE INDEX [ix;1] ON [dbo].[t] ([a]]b])", "INSERT t VALUES (N'x;y')"}},
	{"oracle PL/SQL block ends at /", Oracle,
		"CREATE OR REPLACE PROCEDURE p AS\nBEGIN\n  UPDATE t SET x = 1;\n  COMMIT;\nEND;\n/\nCREATE INDEX i ON t (x);\nSELECT q'[it's; fine]' FROM dual;\n/\nDROP INDEX i\n/\n",
		[]string{"CREATE OR REPLACE PROCEDURE p AS\nBEGIN\n  UPDATE t SET x = 1;\n  COMMIT;\nEND;", "CREATE INDEX i ON t (x)", "SELECT q'[it's; fine]' FROM dual", "DROP INDEX i"}},
}

func TestSplitCases(t *testing.T) {
	t.Parallel()
	for _, c := range splitCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Texts(c.dialect, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%s split\n%q\nwant\n%q", c.dialect, got, c.want)
			}
		})
	}
}

func TestGooseAnnotations(t *testing.T) {
	t.Parallel()
	src := `-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION touch() RETURNS trigger AS $$ BEGIN NEW.t := now(); RETURN NEW; END $$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE INDEX jobs_t ON jobs (t);

-- +goose Down
DROP INDEX jobs_t;
DROP FUNCTION touch();
`
	sc, err := ParseScript(Postgres, src)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Annotated || len(sc.Up) != 2 || len(sc.Down) != 2 || sc.Down[0].Text != "DROP INDEX jobs_t" {
		t.Fatalf("goose: %+v", sc)
	}
	if !strings.HasPrefix(sc.Up[0].Text, "CREATE FUNCTION") || sc.Up[0].ParseError() != nil || sc.Up[1].Line != 5 {
		t.Fatalf("goose up: %+v", sc.Up)
	}
	for _, bad := range []string{"select 1;\n-- +goose Up\nselect 2", "-- +goose Up\n-- +goose StatementBegin\nselect 1", "-- +goose Sideways\n"} {
		if _, err := ParseScript(Postgres, bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ dialect, src, want string }{
		{Postgres, "select 1;\nselect 'open", "line 2, column 8: unterminated quoted string"},
		{Postgres, "select /* /* */ 1", "unterminated /* comment"},
		{Postgres, "select $x$ 1", "unterminated dollar-quoted string $x$"},
		{MySQL, "select `a", "unterminated quoted identifier"},
		{Oracle, "select q'[x' from dual", "unterminated q-quoted string"},
		{"db2", "select 1", `unknown dialect "db2"`},
	} {
		_, err := Split(c.dialect, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want %q", c.dialect, c.src, err, c.want)
		}
	}
}

// A statement PostgreSQL 17's parser does not read is still sent (the server
// decides), with the parser's error kept.
func TestPostgresUnparsedStatement(t *testing.T) {
	t.Parallel()
	st, err := Split(Postgres, "create index i on t (a);\nfrobnicate the table;\nupdate t set a = 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 3 || st[0].ParseError() != nil || st[1].ParseError() == nil || st[2].pg == nil {
		t.Fatalf("statements: %+v", st)
	}
}

func TestStatementsForEmbeddedSQL(t *testing.T) {
	t.Parallel()
	got := Statements("-- header\nCREATE TABLE a (x varchar(3) DEFAULT 'a;b');\nCREATE INDEX i ON a (x);\n")
	want := []string{"CREATE TABLE a (x varchar(3) DEFAULT 'a;b')", "CREATE INDEX i ON a (x)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Statements: %q", got)
	}
}
