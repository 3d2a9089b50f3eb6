package explain

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/sqlparse"
)

func TestPredictRules(t *testing.T) {
	t.Parallel()
	tb := Table{Schema: "s", Name: "t", Found: true, Columns: map[string]Column{
		"id": {Type: "int4", NotNull: true}, "v": {Type: "int4", NotNull: true}, "ts": {Type: "int8", NotNull: true},
		"flag": {Type: "int4", NotNull: true}, "pad": {Type: "text", Toastable: true},
	}, ToastIndex: "pg_toast.pg_toast_1_index", Indexes: []Index{
		{Name: "t_pkey", Method: "btree", Primary: true, Keys: []string{"id"}},
		{Name: "t_v", Method: "btree", Keys: []string{"v"}},
		{Name: "t_b", Method: "brin", Keys: []string{"ts"}},
		{Name: "t_p", Method: "btree", Keys: []string{"id"}, Predicate: []string{"flag"}, Partial: true},
	}}
	cases := []struct {
		name, dialect string
		version       int
		w             sqlparse.Write
		hot           string
		entries       float64
		rewrites      int
		deps          string
	}{
		{"unindexed column is HOT", "postgres", 150000, upd("pad", "pad || 'x'"), "possible", 0, 0, "page free space"},
		{"key column is not HOT", "postgres", 150000, upd("v", "v + 1"), "no", 4, 0, ""},
		{"key column set to itself stays HOT", "postgres", 150000, upd("v", "v"), "possible", 0, 0, "page free space"},
		{"key column set to a constant depends on the value", "postgres", 150000, upd("v", "7"), "possible", 0, 0, "new value equals old,page free space"},
		{"BRIN column blocks HOT before 16", "postgres", 150000, upd("ts", "ts + 1"), "no", 4, 0, ""},
		{"BRIN column stays HOT from 16, BRIN summary updated", "postgres", 160000, upd("ts", "ts + 1"), "possible", 1, 0, "page free space"},
		{"non-HOT from 16: BRIN at most one", "postgres", 160000, upd("v", "v - 2"), "no", 4, 0, ""},
		{"predicate column is not HOT", "postgres", 150000, upd("flag", "flag + 1"), "no", 4, 0, ""},
		{"insert: every index", "postgres", 150000, sqlparse.Write{Kind: "insert"}, "", 4, 0, ""},
		{"delete: none now", "postgres", 150000, sqlparse.Write{Kind: "delete"}, "", 0, 0, ""},
		{"InnoDB: secondary holding the column is rewritten", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"v"}}, "", 1, 1, ""},
		{"InnoDB: unindexed column rewrites nothing", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"pad"}}, "", 0, 0, ""},
		{"InnoDB: primary key change rewrites every secondary", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"id"}}, "", 4, 3, ""},
	}
	for _, c := range cases {
		tbl := tb
		if c.dialect == "mysql" {
			tbl.ToastIndex = ""
		}
		p := Predict(c.dialect, c.version, c.w, tbl)
		if p.HOT != c.hot || p.EntriesPerRow != c.entries || len(p.Rewrites) != c.rewrites || strings.Join(p.DependsOn, ",") != c.deps {
			t.Errorf("%s: HOT %q %v, entries %v, rewrites %v; want %q %q, %v, %d", c.name, p.HOT, p.DependsOn, p.EntriesPerRow, p.Rewrites, c.hot, c.deps, c.entries, c.rewrites)
		}
	}
}

func upd(col, expr string) sqlparse.Write {
	return sqlparse.Write{Kind: "update", Table: "t", Columns: []string{col}, Statement: "UPDATE s.t SET " + col + " = " + expr + " WHERE id = 1"}
}

// TestSetValueRules: how each SET expression's new value relates to the old
// one, as HeapDetermineColumnsInfo will compare them.
func TestSetValueRules(t *testing.T) {
	t.Parallel()
	cols := map[string]Column{"n": {Type: "int4", NotNull: true}, "m": {Type: "int8"}, "f": {Type: "float8", NotNull: true},
		"s": {Type: "text", NotNull: true}, "u": {Type: "text"}}
	for expr, want := range map[string]change{
		"n = n": changeNone, "n = x.n": changeNone, "n = n + 1": changeCertain, "n = 1 + n": changeCertain, "n = n - 3": changeCertain,
		"n = n + 0": changeMaybe, "n = n * 2": changeMaybe, "n = 5": changeMaybe, "n = $1": changeMaybe, "n = m": changeMaybe,
		"m = m + 1": changeUnlessNull, "f = f + 1": changeMaybe, "s = s || 'x'": changeCertain, "s = 'x' || s": changeCertain,
		"s = s || ''": changeMaybe, "u = u || 'x'": changeUnlessNull, "n = DEFAULT": changeMaybe,
	} {
		col, _, _ := strings.Cut(expr, " ")
		got := setChanges("UPDATE t AS x SET "+expr+" WHERE true", "t", cols)[col]
		if got != want {
			t.Errorf("SET %s: %d, want %d", expr, got, want)
		}
	}
	if got := setChanges("UPDATE t SET (n, m) = (m, n)", "t", cols); got["n"] != changeMaybe || got["m"] != changeMaybe {
		t.Errorf("multi-assignment: %v, want both maybe", got)
	}
}

func TestFileIndexCountsForLaterStatements(t *testing.T) {
	t.Parallel()
	st, err := sqlparse.Split(sqlparse.Postgres, "CREATE INDEX t_w ON t (lower(w)); UPDATE t SET w = w || 'x';")
	if err != nil {
		t.Fatal(err)
	}
	ix := sqlparse.Indexes(sqlparse.Postgres, st[:1])
	ws := sqlparse.Writes(sqlparse.Postgres, st[1:])
	if len(ix) != 1 || len(ws) != 1 || ws[0].Kind != "update" || len(ws[0].Columns) != 1 || ws[0].Columns[0] != "w" {
		t.Fatalf("indexes %+v writes %+v", ix, ws)
	}
	tb := Table{Name: "t", Found: true, Columns: map[string]Column{"w": {Type: "text", NotNull: true}},
		Indexes: []Index{{Name: "t_w", Method: "btree", Keys: ix[0].Keys, Expr: ix[0].Expression}}}
	if p := Predict("postgres", 150000, ws[0], tb); p.HOT != "no" {
		t.Errorf("an expression index on lower(w) must make SET w non-HOT: %+v", p)
	}
}
