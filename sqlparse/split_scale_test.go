package sqlparse

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Splitting was quadratic: each statement's line was counted from the
// file's start, and PostgreSQL's parser read the whole file (50,000
// statements took 148 s). The bound is far above the linear time (about a
// second here on a loaded machine) and far below the quadratic one.
func TestSplittingIsLinear(t *testing.T) {
	t.Parallel()
	const n = 50000
	var b strings.Builder
	b.WriteString("-- a data file\n")
	for i := range n {
		fmt.Fprintf(&b, "insert into t (id, v) values (%d, 'row\n%d');\n", i, i)
	}
	src := b.String()
	for _, d := range []string{Postgres, MySQL, SQLServer, Oracle} {
		t0 := time.Now()
		sc, err := ParseScript(d, src)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		took := time.Since(t0)
		if len(sc.Up) != n {
			t.Fatalf("%s: %d statements, want %d", d, len(sc.Up), n)
		}
		for _, i := range []int{0, 1, n / 2, n - 1} {
			if want := 2 + 2*i; sc.Up[i].Line != want {
				t.Errorf("%s: statement %d on line %d, want %d", d, i, sc.Up[i].Line, want)
			}
		}
		if took > 30*time.Second {
			t.Errorf("%s: %d statements split in %v: not linear", d, n, took)
		}
		t.Logf("%s: %d statements (%d bytes) in %v", d, n, len(src), took)
	}
}

// Past wholeParseLimit a plain INSERT is read from its tokens: the table it
// writes must be the one the parser would name.
func TestLargeScriptInsertsNameTheirTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("create table big (id int, v text);\n")
	for i := 0; b.Len() <= wholeParseLimit; i++ {
		fmt.Fprintf(&b, "INSERT INTO Big VALUES (%d, 'x');\n", i)
	}
	b.WriteString("insert into \"Sch\".\"Mixed\" values (1);\ninsert into s.t select 1;\nupdate big set v = 'y';\n")
	sc, err := ParseScript(Postgres, b.String())
	if err != nil {
		t.Fatal(err)
	}
	last := len(sc.Up) - 1
	for i, want := range map[int]string{1: ".big", last - 2: "Sch.Mixed", last - 1: "s.t", last: ".big"} {
		if got := changedTable(Postgres, sc.Up[i]); got != want {
			t.Errorf("statement %d (%.40s): table %q, want %q", i, sc.Up[i].Text, got, want)
		}
	}
	if !sc.Up[1].Unparsed() || sc.Up[0].Unparsed() || sc.Up[last].Unparsed() {
		t.Errorf("only the INSERTs go unparsed: %v %v %v", sc.Up[0].Unparsed(), sc.Up[1].Unparsed(), sc.Up[last].Unparsed())
	}
	if sc.Up[last].pg == nil {
		t.Errorf("the UPDATE has no parse tree: %v", sc.Up[last].pgErr)
	}
}

func TestNumberLinesAcrossGooseSections(t *testing.T) {
	t.Parallel()
	src := "-- +goose Up\ncreate table a (id int);\n\ncreate index on a (id);\n-- +goose Down\ndrop table a;\n"
	sc, err := ParseScript(Postgres, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Up) != 2 || sc.Up[0].Line != 2 || sc.Up[1].Line != 4 || len(sc.Down) != 1 || sc.Down[0].Line != 6 {
		t.Fatalf("lines: up %+v down %+v", sc.Up, sc.Down)
	}
	sc, err = ParseScript(SQLServer, "select 1\nGO 3\nselect 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Up) != 4 || sc.Up[2].Line != 1 || sc.Up[3].Line != 3 {
		t.Fatalf("GO 3: %+v", sc.Up)
	}
}
