package doctor

import (
	"bytes"
	"strings"
	"testing"
)

func TestSplitFix(t *testing.T) {
	cases := []struct{ in, reason, fix string }{
		{`pg_walinspect is installed but app may not execute it (fix: GRANT pg_read_server_files TO "app", or GRANT EXECUTE ON FUNCTION "public".pg_get_wal_records_info(pg_lsn, pg_lsn) TO "app")`,
			"pg_walinspect is installed but app may not execute it",
			`GRANT pg_read_server_files TO "app", or GRANT EXECUTE ON FUNCTION "public".pg_get_wal_records_info(pg_lsn, pg_lsn) TO "app"`},
		{`pg_walinspect is not installed in database db and app may not create it (fix, as a superuser: CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO "app")`,
			"pg_walinspect is not installed in database db and app may not create it",
			`as a superuser: CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO "app"`},
		{"n_tup_newpage_upd needs PostgreSQL 16 or later", "n_tup_newpage_upd needs PostgreSQL 16 or later", ""},
	}
	for _, c := range cases {
		r, f := splitFix(c.in)
		if r != c.reason || f != c.fix {
			t.Errorf("splitFix(%q) = %q, %q; want %q, %q", c.in, r, f, c.reason, c.fix)
		}
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
