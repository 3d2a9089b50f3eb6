package check

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/workloads"
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
		{func(r *Request) { cmd(r); r.InPlace = true; r.KeepMigration = true; r.Repeat = 2 }, "needs the migration undone"},
		{func(r *Request) {
			cmd(r)
			r.InPlace = true
			r.Downs = []string{filepath.Join(t.TempDir(), "none.down.sql")}
		}, "--down"},
		{func(r *Request) { cmd(r); r.InPlace = true; r.Downs = []string{t.TempDir()} }, "holds no *.sql"},
		{func(r *Request) { cmd(r); r.Downs = []string{m} }, "add --in-place"},
		{func(r *Request) { cmd(r); r.KeepMigration = true }, "add --in-place"},
		{func(r *Request) { cmd(r); r.Clone = true; r.InPlace = true }, "give one of them"},
		{func(r *Request) { r.InPlace = true }, "--in-place is for -- COMMAND"},
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
	if c, ok := g.Mode.(*Copy); !ok || c.MaxSize != DefaultCopyMaxSize || len(g.Budgets) != 2 || len(g.Migration) != 1 || len(g.Schema) != 0 || !slices.Equal(c.Argv, r.Command) ||
		!slices.Equal(g.Scope.Schemas, []string{"app"}) || g.Window != nil {
		t.Errorf("gate %+v, mode %#v", g, g.Mode)
	}
}

// Each request is one mode, holding what that mode uses and nothing else:
// the --down files go to the command on the database, never to --clone.
func TestRequestChoosesOneMode(t *testing.T) {
	t.Parallel()
	m := writeSQL(t, "create index i on t (a);")
	d := writeSQL(t, "drop index i;")
	cmd := []string{"psql", "-f", "w.sql"}
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	for _, tc := range []struct {
		name string
		r    Request
		want func(Mode) bool
	}{
		{"built-in", Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9"}, Workload: wl, Variant: "baseline", Concurrency: 2, Repeat: 1},
			func(md Mode) bool {
				b, ok := md.(*Builtin)
				return ok && b.Variant == "baseline" && b.Concurrency == 2 && b.Workload == workloads.CheckHooks(wl)
			}},
		{"copy (the default)", Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9"}, Command: cmd, CopyMaxSize: 1 << 20, Repeat: 1},
			func(md Mode) bool { c, ok := md.(*Copy); return ok && slices.Equal(c.Argv, cmd) && c.MaxSize == 1<<20 }},
		{"in place", Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9"}, Command: cmd, InPlace: true, Downs: []string{d}, Repeat: 1},
			func(md Mode) bool { c, ok := md.(*Command); return ok && slices.Equal(c.Argv, cmd) && len(c.Down) == 1 }},
		{"clone", Request{Migrations: []string{m}, Budgets: []string{"hot_ratio>=0.9"}, Command: cmd, Clone: true, Repeat: 1},
			func(md Mode) bool { c, ok := md.(*Clone); return ok && slices.Equal(c.Argv, cmd) && c.Cloner == nil }},
	} {
		g, err := tc.r.Gate()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.want(g.Mode) {
			t.Errorf("%s: mode %#v", tc.name, g.Mode)
		}
	}
}
