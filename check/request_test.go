package check

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func TestCommandAfterDash(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		dash int
		want []string
		err  string
	}{
		{nil, -1, nil, ""},
		{[]string{"psql", "-f", "w.sql"}, 0, []string{"psql", "-f", "w.sql"}, ""},
		{[]string{"stray"}, -1, nil, "put the workload command after --"},
		{[]string{"stray", "psql"}, 1, nil, "before --: stray"},
		{[]string{}, 0, nil, "nothing after --"},
	} {
		got, err := CommandAfterDash(c.args, c.dash)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v at %d: %v, want %q", c.args, c.dash, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%v at %d: %v %v, want %v", c.args, c.dash, got, err, c.want)
		}
	}
}

func writeSQL(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every refusal names what to fix, before anything connects.
func TestRequestRefusesBadInput(t *testing.T) {
	t.Parallel()
	m := writeSQL(t, "create index i on t (a);")
	ok := Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9"}, Variant: "baseline", Concurrency: 1, Repeat: 1}
	cmd := func(r *Request) { r.Command = []string{"true"} }
	for _, c := range []struct {
		edit func(*Request)
		want string
	}{
		{func(r *Request) { r.Migrations = nil }, "--migration is required"},
		{func(r *Request) { r.Budgets = []string{"hot_ratio=>0.9"} }, "grammar"},
		{func(r *Request) { r.Budgets = []string{"nosuch>=1"} }, "nosuch"},
		{func(r *Request) { r.Variant = "fast" }, "--variant: unknown variant \"fast\""},
		{func(r *Request) { r.ScopeSchemas = []string{"app"} }, "--scope-schema is for -- COMMAND"},
		{func(r *Request) { r.Workload.(*refreshtoken.Workload).P.Logins = 0 }, "--logins"},
		{func(r *Request) { r.Workload.(*refreshtoken.Workload).P.UsersPerSecond = math.NaN() }, "--users-per-second"},
		{func(r *Request) { r.Concurrency = 0 }, "--concurrency"},
		{func(r *Request) { r.Migrations = []string{filepath.Join(t.TempDir(), "none.sql")} }, "--migration"},
		{func(r *Request) { r.Schemas = []string{"/dev/zero"} }, "--schema"},
		{func(r *Request) { r.Repeat = 0 }, "--repeat 0"},
		{func(r *Request) { r.Repeat = MaxRepeat + 1 }, "--repeat 21"},
		{func(r *Request) { r.Downs = []string{m} }, "--down is for -- COMMAND"},
		{func(r *Request) { r.KeepMigration = true }, "--keep-migration is for -- COMMAND"},
		{func(r *Request) { r.Clone = true }, "--clone is for -- COMMAND"},
		{func(r *Request) { cmd(r); r.Downs = []string{m}; r.KeepMigration = true }, "give one of them"},
		{func(r *Request) { cmd(r); r.Clone = true; r.Downs = []string{m} }, "nothing to do with it"},
		{func(r *Request) { cmd(r); r.KeepMigration = true; r.Repeat = 2 }, "needs the migration undone"},
		{func(r *Request) { cmd(r); r.Downs = []string{filepath.Join(t.TempDir(), "none.down.sql")} }, "--down"},
		{func(r *Request) { cmd(r); r.Downs = []string{t.TempDir()} }, "holds no *.sql"},
	} {
		r := ok
		r.Workload = refreshtoken.New(refreshtoken.DefaultParams())
		c.edit(&r)
		if _, err := r.Gate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", r, err, c.want)
		}
	}
	// The built-in workload's limits apply only when it runs.
	r := ok
	r.Workload = refreshtoken.New(refreshtoken.DefaultParams())
	r.Workload.(*refreshtoken.Workload).P.Logins = 0
	r.Command = []string{"true"}
	r.Variant = "ignored with a command"
	if _, err := r.Gate(); err != nil {
		t.Errorf("a command's check does not validate the built-in workload: %v", err)
	}
}

func TestRequestGate(t *testing.T) {
	t.Parallel()
	m := writeSQL(t, "create index i on t (a);\ncreate index j on t (b);")
	r := Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9", "log_bytes/op<=+5%"}, Command: []string{"psql", "-f", "w.sql"},
		ScopeSchemas: []string{"app"}, Repeat: 1}
	g, err := r.Gate()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Budgets) != 2 || len(g.Migration) != 1 || len(g.Schema) != 0 || !slices.Equal(g.Command, r.Command) ||
		!slices.Equal(g.Scope.Schemas, []string{"app"}) || g.Window != nil {
		t.Errorf("gate %+v", g)
	}
}
