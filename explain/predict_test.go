package explain

import (
	"testing"

	"github.com/writeamp/writeamp/sqlparse"
)

func TestPredictRules(t *testing.T) {
	t.Parallel()
	tb := Table{Schema: "s", Name: "t", Found: true, Indexes: []Index{
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
	}{
		{"unindexed column is HOT", "postgres", 150000, sqlparse.Write{Kind: "update", Columns: []string{"pad"}}, "possible", 0, 0},
		{"key column is not HOT", "postgres", 150000, sqlparse.Write{Kind: "update", Columns: []string{"v"}}, "no", 4, 0},
		{"BRIN column blocks HOT before 16", "postgres", 150000, sqlparse.Write{Kind: "update", Columns: []string{"ts"}}, "no", 4, 0},
		{"BRIN column stays HOT from 16", "postgres", 160000, sqlparse.Write{Kind: "update", Columns: []string{"ts"}}, "possible", 0, 0},
		{"non-HOT from 16: BRIN adds no entry", "postgres", 160000, sqlparse.Write{Kind: "update", Columns: []string{"v"}}, "no", 3, 0},
		{"predicate column is not HOT", "postgres", 150000, sqlparse.Write{Kind: "update", Columns: []string{"flag"}}, "no", 4, 0},
		{"insert: every index", "postgres", 150000, sqlparse.Write{Kind: "insert"}, "", 4, 0},
		{"delete: none now", "postgres", 150000, sqlparse.Write{Kind: "delete"}, "", 0, 0},
		{"InnoDB: secondary holding the column is rewritten", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"v"}}, "", 1, 1},
		{"InnoDB: unindexed column rewrites nothing", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"pad"}}, "", 0, 0},
		{"InnoDB: primary key change rewrites every secondary", "mysql", 100000, sqlparse.Write{Kind: "update", Columns: []string{"id"}}, "", 4, 3},
	}
	for _, c := range cases {
		p := Predict(c.dialect, c.version, c.w, tb)
		if p.HOT != c.hot || p.EntriesPerRow != c.entries || len(p.Rewrites) != c.rewrites {
			t.Errorf("%s: HOT %q, entries %v, rewrites %v; want %q, %v, %d", c.name, p.HOT, p.EntriesPerRow, p.Rewrites, c.hot, c.entries, c.rewrites)
		}
	}
}

func TestFileIndexCountsForLaterStatements(t *testing.T) {
	t.Parallel()
	st, err := sqlparse.Split(sqlparse.Postgres, "CREATE INDEX t_w ON t (lower(w)); UPDATE t SET w = 'x';")
	if err != nil {
		t.Fatal(err)
	}
	ix := sqlparse.Indexes(sqlparse.Postgres, st[:1])
	ws := sqlparse.Writes(sqlparse.Postgres, st[1:])
	if len(ix) != 1 || len(ws) != 1 || ws[0].Kind != "update" || len(ws[0].Columns) != 1 || ws[0].Columns[0] != "w" {
		t.Fatalf("indexes %+v writes %+v", ix, ws)
	}
	tb := Table{Name: "t", Found: true, Indexes: []Index{{Name: "t_w", Method: "btree", Keys: ix[0].Keys, Expr: ix[0].Expression}}}
	if p := Predict("postgres", 150000, ws[0], tb); p.HOT != "no" {
		t.Errorf("an expression index on lower(w) must make SET w non-HOT: %+v", p)
	}
}
