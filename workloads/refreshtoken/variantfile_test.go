package refreshtoken_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func TestVariantFileRefusesWithTheLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"name: x1\nbase: coarse\ncolour: red\n", "line 3"},
		{"name: x1\nbase: medium\n", "line 2: base must be one of"},
		{"name: Bad-Name\nbase: coarse\n", "line 1: name must be"},
		{"name: coarse\nbase: coarse\n", "built-in variant"},
		{"name: x1\nbase: coarse\nddl:\n  db2: CREATE TABLE t (a int)\n", "line 4: ddl: unknown dialect \"db2\""},
		{"name: x1\nbase: coarse\noperations:\n  refresh:\n    drop: [rt_nothing]\n", "line 5: operations.refresh.drop: unknown statement \"rt_nothing\""},
		{"name: x1\nbase: coarse\noperations:\n  sleep:\n    drop: []\n", "line 4: operations: unknown operation \"sleep\""},
		{"name: x1\nbase: coarse\noperations:\n  refresh:\n    replace:\n      rt_update_client_session:\n        sql: {postgres: x}\n        colums: [a]\n", "line 8"},
	} {
		_, err := refreshtoken.ParseVariant([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.doc, err, c.want)
		}
	}
}

// The shipped example parses, is named in --variants, and drops the
// refresh's client-session lock and update.
func TestShippedVariantFile(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("*variant*.yaml")
	if len(files) == 0 {
		t.Fatal("no example variant file")
	}
	v, err := refreshtoken.ReadVariantFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// The description keeps its "#45462": unquoted, YAML reads " #" as a
	// comment and cuts it.
	if v.Base != "coarse" || !strings.HasSuffix(v.Description, "(issue #45462)") || strings.Join(v.Operations["refresh"].Drop, ",") != "rt_lock_client_session_skip_locked,rt_update_client_session" {
		t.Errorf("example: %+v", v)
	}
	p := refreshtoken.DefaultParams()
	p.VariantFile = files[0]
	w := refreshtoken.New(p)
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Meta().Variants, ","); got != "baseline,coarse,"+v.Name {
		t.Errorf("variants %s", got)
	}
	p.VariantFile = filepath.Join(t.TempDir(), "missing.yaml")
	if err := refreshtoken.New(p).Validate(); err == nil || !strings.Contains(err.Error(), "--variant-file") {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: x1\nbase: coarse\nextra: 1\n"), 0o600)
	p.VariantFile = bad
	if err := refreshtoken.New(p).Validate(); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("an unknown key: %v", err)
	}
}
