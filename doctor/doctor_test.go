package doctor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

// A capability's reason reaches doctor typed: its text and its fix apart
// (however many parentheses the statement has), a superuser's fix said so,
// and a version gate marked n/a by its kind, not by its words.
func TestCapItemsKeepTheReasonTyped(t *testing.T) {
	var s dialects.Server
	s.Deny("pg_walinspect", dialects.Reason{Kind: dialects.Privilege, Text: "pg_walinspect is installed but app may not execute it",
		Fix: `GRANT pg_read_server_files TO "app", or GRANT EXECUTE ON FUNCTION "public".pg_get_wal_records_info(pg_lsn, pg_lsn) TO "app"`})
	s.Deny("create_walinspect", dialects.Reason{Text: "not listed: a create_ capability"})
	s.Deny("hold_wal", dialects.Reason{Kind: dialects.Setting, Text: "pg_walinspect is not installed in database db and app may not create it",
		Fix: `CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO "app"`, AsSuperuser: true})
	s.Deny("n_tup_newpage_upd", dialects.Reason{Kind: dialects.Version, Text: "n_tup_newpage_upd needs PostgreSQL 16 or later"})
	s.Deny("worded_like_a_version", dialects.Reason{Kind: dialects.Setting, Text: "this needs PostgreSQL 99 or later, says the text", Fix: "SET x = 1"})
	s.Set("checkpoint", true, "")
	got := capItems(s, []Item{{Name: "hold_wal"}})
	want := []Item{
		{Name: "n_tup_newpage_upd", Kind: "version", Reason: "n_tup_newpage_upd needs PostgreSQL 16 or later"},
		{Name: "pg_walinspect", Kind: "capability", Reason: "pg_walinspect is installed but app may not execute it",
			Fix: `GRANT pg_read_server_files TO "app", or GRANT EXECUTE ON FUNCTION "public".pg_get_wal_records_info(pg_lsn, pg_lsn) TO "app"`},
		{Name: "worded_like_a_version", Kind: "capability", Reason: "this needs PostgreSQL 99 or later, says the text", Fix: "SET x = 1"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d items, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Kind != w.Kind || g.Reason != w.Reason || g.Fix != w.Fix {
			t.Errorf("item %d = %+v, want %+v", i, g, w)
		}
	}
	if fix := s.Reason("hold_wal").FixLine(); fix != `as a superuser: CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO "app"` {
		t.Errorf("a superuser's fix: %q", fix)
	}
}

// TestVerdict: doctor judges the command asked about (measure unless
// asked), says per command what works, and an optional item missing costs
// no command.
func TestVerdict(t *testing.T) {
	r := &Report{Items: []Item{
		{Name: "wal_lsn", Kind: "collector", Needed: true, For: "measure", Available: true},
		{Name: "pg_walinspect", Kind: "interval collector", Reason: "no", Fix: "GRANT pg_read_server_files TO app"},
		{Name: "n_tup_newpage_upd", Kind: "version", Reason: "needs PostgreSQL 16 or later"},
		{Name: "create schema", Kind: "privilege", Needed: true, For: "run", Reason: "app may not create schemas", Fix: "GRANT CREATE ON DATABASE db TO app"},
		{Name: "confined login", Kind: "privilege", Needed: true, For: "check", Available: true},
	}}
	if !r.OK() || r.Complete() || r.Works("run") || r.Works("check") {
		t.Fatalf("OK %v Complete %v run %v check %v", r.OK(), r.Complete(), r.Works("run"), r.Works("check"))
	}
	var buf bytes.Buffer
	if err := Render(&buf, "table", r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"MISSING    pg_walinspect", "fix:     GRANT pg_read_server_files TO app", "n/a        n_tup_newpage_upd",
		"MISSING    create schema   run ", "  measure  works\n", "  run      CANNOT WORK: missing create schema\n",
		"  check    CANNOT WORK with its built-in workload: missing create schema; check -- COMMAND works",
		"without pg_walinspect some numbers are derived or absent", "verdict: measure works here; run, check cannot (exit code 0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}

	r.For = "run"
	if r.OK() {
		t.Fatal("--for run: run cannot create its schema")
	}
	buf.Reset()
	Render(&buf, "table", r)
	if !strings.Contains(buf.String(), "verdict: run cannot work here: missing create schema (exit code 1)") {
		t.Errorf("--for run:\n%s", buf.String())
	}
	r.Items[3].Available = true
	if !r.OK() || !r.Works("check") {
		t.Fatal("with the schema, run and check work")
	}
	r.Items[0].Available = false
	r.For = ""
	if r.OK() || r.Works("run") {
		t.Fatal("without the WAL position nothing works")
	}
	buf.Reset()
	Render(&buf, "json", r)
	if !strings.Contains(buf.String(), `"ok": false`) || !strings.Contains(buf.String(), `"for": "measure",
      "works": false,
      "missing": [
        "wal_lsn"`) {
		t.Errorf("json:\n%s", buf.String())
	}
}

// Where doctor recommends EXECUTE on pg_read_binary_file it says, next to
// the GRANT, that the role can then read every file under the data
// directory, and names the narrower pg_walinspect grant; said in full once.
func TestCautionBesideTheGrant(t *testing.T) {
	grant := `GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO "app"`
	c := Cautions(grant)
	if len(c) != 1 || !strings.Contains(c[0], "read every file under the data directory") ||
		!strings.Contains(c[0], "every database") || !strings.Contains(c[0], "pg_get_wal_records_info") {
		t.Fatalf("caution: %q", c)
	}
	if c := Cautions(`CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO "app"`); len(c) != 1 || !strings.Contains(c[0], "any file") {
		t.Errorf("pg_read_server_files: %q", c)
	}
	if c := Cautions(`GRANT pg_checkpoint TO "app"`); c != nil {
		t.Errorf("pg_checkpoint: %q", c)
	}
	r := &Report{Items: []Item{
		{Name: "pg_wal", Kind: "collector", Reason: "no", Fix: grant, Cautions: Cautions(grant)},
		{Name: "wal_files", Kind: "capability", Reason: "no", Fix: grant, Cautions: Cautions(grant)},
	}}
	var buf bytes.Buffer
	Render(&buf, "table", r)
	out := buf.String()
	if i, j := strings.Index(out, "fix:     "+grant), strings.Index(out, "caution: EXECUTE on pg_read_binary_file lets the role read every file under the data directory"); i < 0 || j < i {
		t.Errorf("no caution after the GRANT:\n%s", out)
	}
	if n := strings.Count(out, "read every file"); n != 1 || !strings.Contains(out, "caution: as for pg_wal above") {
		t.Errorf("caution said %d times in full:\n%s", n, out)
	}
}
