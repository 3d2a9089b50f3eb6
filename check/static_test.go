package check

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	sql := `-- header
create table a (x text default 'a;b');
CREATE FUNCTION f() RETURNS int AS $body$ select 1; $body$ LANGUAGE sql;
/* block; comment */ insert into "we;ird" values ($$x;y$$);
-- only a comment;
select 1`
	got := Split(sql)
	want := []string{
		"-- header\ncreate table a (x text default 'a;b')",
		"CREATE FUNCTION f() RETURNS int AS $body$ select 1; $body$ LANGUAGE sql",
		`/* block; comment */ insert into "we;ird" values ($$x;y$$)`,
		"-- only a comment;\nselect 1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Split:\n%q\nwant\n%q", got, want)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a;b", "'x;'';y'", "$$;$$;", "$a$ $b$ ; $a$;", "/* ; */;", "-- ;\n;", `"a"";b"`, "$1;$2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, st := range Split(s) {
			if strings.TrimSpace(st) == "" {
				t.Fatalf("empty statement from %q", s)
			}
			if !strings.Contains(s, st) {
				t.Fatalf("statement %q is not a piece of %q", st, s)
			}
		}
	})
}

func TestIndexesIn(t *testing.T) {
	files := []File{{Path: "up.sql", Statements: Split(`
create index jobs_touched on jobs(touched_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "Jobs_Expr" ON ONLY public.jobs USING btree (lower(note) text_pattern_ops, id DESC) INCLUDE (status) WHERE status <> 'done' AND touched_at > 0;
create index jobs_ready on jobs(id) where status = 'failed';
alter table jobs add constraint jobs_note_uq unique (note);
create table other (id int)`)}}
	got := IndexesIn(files)
	want := []IndexDef{
		{Name: "jobs_touched", Table: "jobs", Columns: []string{"touched_at"}, Source: "up.sql"},
		{Name: "Jobs_Expr", Table: "jobs", Columns: []string{"note", "id", "status", "touched_at"}, Partial: true, Method: "btree", Source: "up.sql"},
		{Name: "jobs_ready", Table: "jobs", Columns: []string{"id", "status"}, Partial: true, Source: "up.sql"},
		{Name: "jobs_note_uq", Table: "jobs", Columns: []string{"note"}, Source: "up.sql"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("IndexesIn:\n%+v\nwant\n%+v", got, want)
	}
}

func TestUpdatesAndWarn(t *testing.T) {
	ups := UpdatesIn(`update jobs set touched_at = touched_at + 1 where id = 1;
update jobs set touched_at = touched_at + 1 where id = 2;
UPDATE public.jobs AS j SET (status, note) = ('x', 'a,b'), touched_at = 0 FROM other WHERE j.id = other.id;
update other set id = id`, "work.sql")
	if len(ups) != 3 {
		t.Fatalf("updates: %+v", ups)
	}
	if !reflect.DeepEqual(ups[0].Columns, []string{"touched_at"}) || ups[0].Table != "jobs" || ups[0].Example != "update jobs set touched_at = touched_at + 1 where id = 1" {
		t.Fatalf("first update: %+v", ups[0])
	}
	if !reflect.DeepEqual(ups[1].Columns, []string{"note", "status", "touched_at"}) || ups[1].Table != "jobs" {
		t.Fatalf("second update: %+v", ups[1])
	}
	idx := IndexesIn([]File{{Path: "bad.sql", Statements: []string{"create index jobs_touched on jobs(touched_at)"}},
		{Path: "good.sql", Statements: []string{"create index jobs_ready on jobs(id) where status = 'failed'"}}})
	ws := Warn("postgres", idx, ups[:1])
	if len(ws) != 1 || ws[0].Index != "jobs_touched" || ws[0].Column != "touched_at" || !strings.Contains(ws[0].Text, "HOT") || !strings.Contains(ws[0].Text, "work.sql") {
		t.Fatalf("warnings: %+v", ws)
	}
	// The partial index's predicate column is updated by the second statement: it warns too.
	ws = Warn("postgres", idx[1:], ups)
	if len(ws) != 1 || ws[0].Column != "status" {
		t.Fatalf("predicate column: %+v", ws)
	}
}

// The GitHub Action runs its workload input as bash -c '...': the SQL files
// named inside that one argument are read too.
func TestUpdatesOfAShellCommandLine(t *testing.T) {
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
		ups := UpdatesOfCommand(args)
		if len(ups) != 1 || ups[0].Table != "jobs" || !reflect.DeepEqual(ups[0].Columns, []string{"touched_at"}) {
			t.Errorf("%q: %+v", args, ups)
		}
	}
}
