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

func TestVerdict(t *testing.T) {
	r := &Report{Items: []Item{
		{Name: "wal_lsn", Kind: "collector", Needed: true, Available: true},
		{Name: "pg_walinspect", Kind: "interval collector", Reason: "no", Fix: "GRANT pg_read_server_files TO app"},
		{Name: "n_tup_newpage_upd", Kind: "version", Reason: "needs PostgreSQL 16 or later"},
	}}
	if !r.OK() || r.Complete() {
		t.Fatalf("OK %v Complete %v", r.OK(), r.Complete())
	}
	var buf bytes.Buffer
	if err := Render(&buf, "table", r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"MISSING    pg_walinspect", "fix:     GRANT pg_read_server_files TO app", "n/a        n_tup_newpage_upd", "ready for the refresh-token experiment; without pg_walinspect"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	r.Items[0].Available = false
	if r.OK() {
		t.Fatal("a needed item is missing")
	}
}
