package refreshtoken_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// The TOML form is refused with the same lines as the YAML one: unknown
// keys (top level and nested), names, bases, dialects, operations and
// statements, and a statement listed under an operation that does not
// issue it (a drop as a multi-line list names the element's own line).
func TestTOMLVariantFileRefusesWithTheLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"name = \"x1\"\nbase = \"coarse\"\ncolour = \"red\"\n", "line 3: unknown key colour"},
		{"name = \"x1\"\nbase = \"medium\"\n", "line 2: base must be one of"},
		{"name = \"Bad-Name\"\nbase = \"coarse\"\n", "line 1: name must be"},
		{"name = \"coarse\"\nbase = \"coarse\"\n", "built-in variant"},
		{"name = \"x1\"\nbase = \"coarse\"\n[ddl]\ndb2 = \"CREATE TABLE t (a int)\"\n", "line 4: ddl: unknown dialect \"db2\""},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.refresh]\ndrop = [\"rt_nothing\"]\n", "line 4: operations.refresh.drop: unknown statement \"rt_nothing\""},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.sleep]\ndrop = []\n", "line 3: operations: unknown operation \"sleep\""},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.refresh.replace.rt_update_client_session]\nsql = {postgres = \"x\"}\ncolums = [\"a\"]\n", "line 5: unknown key operations.refresh.replace.rt_update_client_session.colums"},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.refresh.replace.rt_update_client_session.sql]\ndb2 = \"x\"\n", "line 4: unknown dialect \"db2\""},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.login]\ndrop = [\n  \"rt_select_user_session\",\n  \"rt_update_client_session\",\n]\n", "line 6: operations.login.drop: rt_update_client_session is not a statement of login"},
		{"name = \"x1\"\nbase = \"coarse\"\n[operations.logout.replace.rt_update_user_session]\nsql = {postgres = \"x\"}\n", "line 3: operations.logout.replace: rt_update_user_session is not a statement of logout"},
		{"name = \"x1\"\nbase = [\n", "line 2"},
	} {
		_, err := refreshtoken.ParseVariantTOML([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.doc, err, c.want)
		}
	}
}

// YAML refuses a statement under the wrong operation with its line too.
func TestYAMLVariantFileRefusesAStatementOfAnotherOperation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"name: x1\nbase: coarse\noperations:\n  logout:\n    drop:\n      - rt_delete_user_session\n      - rt_update_client_session\n", "line 7: operations.logout.drop: rt_update_client_session is not a statement of logout"},
		{"name: x1\nbase: coarse\noperations:\n  login:\n    replace:\n      rt_delete_user_session:\n        sql: {postgres: x}\n", "line 6: operations.login.replace: rt_delete_user_session is not a statement of login"},
	} {
		_, err := refreshtoken.ParseVariant([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.doc, err, c.want)
		}
	}
}

// The shipped example written as TOML reads as the same variant, the
// extension choosing the format; an unknown extension is refused.
func TestTOMLVariantFileReadsAsTheYAMLOne(t *testing.T) {
	t.Parallel()
	want, err := refreshtoken.ReadVariantFile("client-timestamp-variant.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := `# Keycloak issue #45462, as in client-timestamp-variant.yaml
name = "no_client_ts"
base = "coarse"
description = "26.8 without the client session's TIMESTAMP write on refresh (issue #45462)"

[operations.refresh]
drop = ["rt_lock_client_session_skip_locked", "rt_update_client_session"]
`
	dir := t.TempDir()
	path := filepath.Join(dir, "v.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := refreshtoken.ReadVariantFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TOML %+v, YAML %+v", got, want)
	}
	replaced := `name = "r1"
base = "baseline"
[ddl_append]
postgres = "CREATE INDEX idx_x ON {{schema}}.offline_client_session (timestamp)"
[operations.refresh.replace.rt_update_user_session]
columns = ["last_session_refresh", "version"]
sql.postgres = "UPDATE {{schema}}.offline_user_session SET last_session_refresh = $1 WHERE version = $2"
`
	v, err := refreshtoken.ParseVariantTOML([]byte(replaced))
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Operations["refresh"].Replace["rt_update_user_session"]; len(r.Columns) != 2 || !strings.HasPrefix(r.SQL["postgres"], "UPDATE") || v.DDLAppend["postgres"] == "" {
		t.Errorf("replace: %+v", v)
	}
	for _, name := range []string{"v.json", "v"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(doc), 0o600)
		if _, err := refreshtoken.ReadVariantFile(p); err == nil || !strings.Contains(err.Error(), ".toml") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// TOML text in a .yaml file is read as YAML and refused.
	p := filepath.Join(dir, "toml.yaml")
	os.WriteFile(p, []byte(doc), 0o600)
	if _, err := refreshtoken.ReadVariantFile(p); err == nil {
		t.Error("TOML read as YAML")
	}
}
