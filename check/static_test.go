package check

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
)

func files(t *testing.T, dialect string, fs ...sqlfile.File) []sqlfile.File {
	t.Helper()
	if err := sqlfile.Split(dialect, fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

type idx struct {
	Name, Table                          string
	Columns, Keys, Include, Predicate    []string
	Expression, Partial, Unique, Concurr bool
}

func brief(in []IndexDef) []idx {
	var out []idx
	for _, i := range in {
		out = append(out, idx{i.Name, i.Table, i.Columns, i.Keys, i.Include, i.Predicate, i.Expression, i.Partial, i.Unique, i.Concurrently})
	}
	return out
}

func TestIndexesInPostgres(t *testing.T) {
	t.Parallel()
	fs := files(t, sqlparse.Postgres, sqlfile.File{Path: "up.sql", Text: `
create index jobs_touched on jobs(touched_at);
-- a comment; with a semicolon
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "Jobs_Expr" ON ONLY public.jobs USING btree (lower(note) text_pattern_ops, id DESC) INCLUDE (status) WHERE status <> 'done;' AND touched_at > 0;
create index jobs_ready on jobs(id) where status = 'failed';
alter table jobs add constraint jobs_note_uq unique (note);
create index jobs_doc on jobs ((doc->>'owner'));
insert into notes values (E'it\'s; not a statement');
create table other (id int)`})
	got, skipped := IndexesIn(sqlparse.Postgres, fs)
	want := []idx{
		{Name: "jobs_touched", Table: "jobs", Columns: []string{"touched_at"}, Keys: []string{"touched_at"}},
		{Name: "Jobs_Expr", Table: "jobs", Columns: []string{"note", "id", "status", "touched_at"}, Keys: []string{"note", "id"},
			Include: []string{"status"}, Predicate: []string{"status", "touched_at"}, Expression: true, Partial: true, Unique: true, Concurr: true},
		{Name: "jobs_ready", Table: "jobs", Columns: []string{"id", "status"}, Keys: []string{"id"}, Predicate: []string{"status"}, Partial: true},
		{Name: "jobs_note_uq", Table: "jobs", Columns: []string{"note"}, Keys: []string{"note"}, Unique: true},
		{Name: "jobs_doc", Table: "jobs", Columns: []string{"doc"}, Keys: []string{"doc"}, Expression: true},
	}
	if !reflect.DeepEqual(brief(got), want) || len(skipped) != 0 {
		t.Fatalf("IndexesIn:\n%+v\nwant\n%+v\nskipped %v", brief(got), want, skipped)
	}
	// A statement PostgreSQL 17's parser refuses is named, not silently unchecked.
	_, skipped = IndexesIn(sqlparse.Postgres, files(t, sqlparse.Postgres, sqlfile.File{Path: "new.sql", Text: "create index a on t (x);\ncreate frobnicator f;"}))
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "new.sql line 2 (create frobnicator f): ") {
		t.Fatalf("skipped: %q", skipped)
	}
}

func TestUpdatesAndWarnPostgres(t *testing.T) {
	t.Parallel()
	ups, err := UpdatesIn(sqlparse.Postgres, `\set id random(1, 1000)
update jobs set touched_at = touched_at + 1 where id = :id;
update jobs set touched_at = touched_at + 1 where id = 2;
UPDATE public.jobs AS j SET (status, note) = ('x', 'a,b'), touched_at = (select max(x) from other) FROM other WHERE j.id = other.id;
with moved as (update other set doc = '{}' where id = 1 returning id) select * from moved;
update other set id = id`, "work.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 4 {
		t.Fatalf("updates: %+v", ups)
	}
	if !reflect.DeepEqual(ups[0].Columns, []string{"touched_at"}) || ups[0].Table != "jobs" || ups[0].Example != "update jobs set touched_at = touched_at + 1 where id = $1" {
		t.Fatalf("first update: %+v", ups[0])
	}
	if !reflect.DeepEqual(ups[1].Columns, []string{"note", "status", "touched_at"}) || ups[1].Table != "jobs" {
		t.Fatalf("UPDATE … FROM: %+v", ups[1])
	}
	if ups[2].Table != "other" || !reflect.DeepEqual(ups[2].Columns, []string{"doc"}) {
		t.Fatalf("UPDATE in a CTE: %+v", ups[2])
	}
	idx, _ := IndexesIn(sqlparse.Postgres, files(t, sqlparse.Postgres,
		sqlfile.File{Path: "bad.sql", Text: "create index jobs_touched on jobs(touched_at)"},
		sqlfile.File{Path: "good.sql", Text: "create index jobs_ready on jobs(id) where status = 'failed'"},
		sqlfile.File{Path: "expr.sql", Text: "create index other_owner on other ((doc->>'owner'))"},
		sqlfile.File{Path: "incl.sql", Text: "create index jobs_id_incl on jobs (id) include (note)"}))
	ws := Warn("postgres", idx[:1], ups[:1])
	if len(ws) != 1 || ws[0].Index != "jobs_touched" || ws[0].Column != "touched_at" || !strings.Contains(ws[0].Text, "HOT") || !strings.Contains(ws[0].Text, "work.sql") {
		t.Fatalf("warnings: %+v", ws)
	}
	for _, c := range []struct {
		i         int
		col, role string
	}{
		{1, "status", "(in its WHERE predicate)"}, // partial index, predicate column updated
		{2, "doc", "(in a key expression)"},       // expression index
		{3, "note", "(an INCLUDE column)"},        // INCLUDE column
	} {
		ws = Warn("postgres", idx[c.i:c.i+1], ups)
		if len(ws) != 1 || ws[0].Column != c.col || !strings.Contains(ws[0].Text, c.role) {
			t.Fatalf("index %s: %+v", idx[c.i].Name, ws)
		}
	}
}

func TestWarnMySQL(t *testing.T) {
	t.Parallel()
	ups, err := UpdatesIn(sqlparse.MySQL, "UPDATE jobs j JOIN owners o ON o.id = j.owner SET j.touched_at = NOW(), o.seen = 1 WHERE j.note = 'O\\'Reilly; x';\nUPDATE `jobs` SET `status` = 'done' WHERE id = ?", "work.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 3 || ups[0].Table != "jobs" || ups[0].Columns[0] != "touched_at" || ups[1].Table != "owners" || ups[2].Columns[0] != "status" {
		t.Fatalf("updates: %+v", ups)
	}
	idx, _ := IndexesIn(sqlparse.MySQL, files(t, sqlparse.MySQL, sqlfile.File{Path: "up.sql", Text: "CREATE INDEX jobs_touched ON jobs (touched_at);\nALTER TABLE jobs ADD INDEX jobs_status (`status`(8), id), ADD COLUMN x int;\nCREATE INDEX jobs_id ON jobs (id)"}))
	ws := Warn(sqlparse.MySQL, idx, ups)
	if len(ws) != 2 || ws[0].Index != "jobs_touched" || ws[1].Index != "jobs_status" || !strings.Contains(ws[0].Text, "InnoDB has no HOT") {
		t.Fatalf("warnings: %+v", ws)
	}
}

// The GitHub Action runs its workload input as bash -c '...': the SQL files
// named inside that one argument are read too.
func TestUpdatesOfAShellCommandLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := dir + "/work.sql"
	if err := os.WriteFile(p, []byte("update jobs set touched_at = 1 where id = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"bash", "-c", `psql "$WRITEAMP_DSN" -XAtq -f '` + p + `'`},
		{"bash", "-c", "psql --file=" + p},
		{"psql", "-f", p},
	} {
		ups, _ := UpdatesOfCommand("postgres", args)
		if len(ups) != 1 || ups[0].Table != "jobs" || !reflect.DeepEqual(ups[0].Columns, []string{"touched_at"}) {
			t.Errorf("%q: %+v", args, ups)
		}
	}
}
