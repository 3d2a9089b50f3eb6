package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

// run executes the CLI in-process and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

// closedPG is a DSN nothing answers: a test that reaches it failed to
// refuse its input before connecting.
const closedPG = "postgres://u@127.0.0.1:1/d?sslmode=disable&connect_timeout=1"

func TestBadInputIsAUsageErrorNamingTheFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "yaml"}, "--format"},
		{[]string{"run", "--variants", "fast"}, "--variants"},
		{[]string{"run", "--logins", "0"}, "--logins"},
		{[]string{"run", "--logout-percent", "150"}, "--logout-percent"},
		{[]string{"run", "--no-such-flag"}, "no-such-flag"},
		{[]string{"run", "--refresh-period", "soon"}, "refresh-period"},
		{[]string{"run", "--dsn", "redis://localhost"}, "--dsn"},
		{[]string{"run", "--dsn", "nonsense"}, "--dsn"},
		// Numbers that would panic, overflow a column or run something
		// other than what the report says, refused before connecting.
		{[]string{"run", "--dsn", closedPG, "--logout-percent", "NaN"}, "--logout-percent"},
		{[]string{"run", "--dsn", closedPG, "--logout-percent", "-Inf"}, "--logout-percent"},
		{[]string{"run", "--dsn", closedPG, "--users-per-second", "NaN"}, "--users-per-second"},
		{[]string{"run", "--dsn", closedPG, "--users-per-second", "+Inf"}, "--users-per-second"},
		{[]string{"run", "--dsn", closedPG, "--users-per-second", "1e-300"}, "--users-per-second"},
		{[]string{"run", "--dsn", closedPG, "--users-per-second", "5000"}, "--users-per-second"},
		{[]string{"run", "--dsn", closedPG, "--refresh-period", "2562047h"}, "--refresh-period"},
		{[]string{"run", "--dsn", closedPG, "--refresh-period", "500us"}, "--refresh-period"},
		{[]string{"run", "--dsn", closedPG, "--logins", "99999999999999999999"}, "--logins"},
		{[]string{"run", "--dsn", closedPG, "--logins", "2000000000"}, "--logins"},
		{[]string{"check", "--dsn", closedPG, "--migration", "cli_test.go", "--logout-percent", "NaN"}, "--logout-percent"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		var ue usageError
		if err == nil || !errors.As(err, &ue) {
			t.Errorf("%v: want a usage error, got %v", c.args, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %q does not name %s", c.args, err, c.want)
		}
	}
}

func TestUnreachableServerIsNotAUsageErrorAndHidesThePassword(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, "run", "-q", "--dsn", "postgres://app:Xq7Secr3tPw@127.0.0.1:1/kc?sslmode=disable")
	if err == nil {
		t.Fatal("expected a connection error")
	}
	var ue usageError
	if errors.As(err, &ue) {
		t.Errorf("a server that does not answer is not a usage error: %v", err)
	}
	if strings.Contains(err.Error(), "Xq7Secr3tPw") {
		t.Errorf("password echoed: %v", err)
	}
	if !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("the redacted DSN should say where it tried: %v", err)
	}
}

func TestVersionAndHelpHaveExamples(t *testing.T) {
	t.Parallel()
	out, _, err := run(t, "version")
	if err != nil || !strings.Contains(out, "writeamp ") || !strings.Contains(out, "postgres") || !strings.Contains(out, "commit: ") || !strings.Contains(out, "go: go1.") {
		t.Errorf("version must say version, commit, Go version and dialects: %q %v", out, err)
	}
	for _, c := range newRoot().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples in --help", c.Name())
		}
	}
	out, _, _ = run(t, "completion", "bash")
	if !strings.Contains(out, "bash completion") {
		t.Error("shell completion missing")
	}
}

func TestResolveDSNOrder(t *testing.T) {
	for _, v := range append(pgEnv, "WRITEAMP_DSN", "DATABASE_URL") {
		t.Setenv(v, "")
	}
	if s := sourceOf(""); !s.embedded || s.dialect == nil || s.dialect.Name() != "postgres" {
		t.Errorf("nothing set: the throwaway PostgreSQL, got %+v", s)
	}
	t.Setenv("PGHOST", "/tmp")
	if s := sourceOf(""); s.embedded || s.dsn != "" || s.from != "PGHOST" || s.dialect.Name() != "postgres" {
		t.Errorf("PG* environment: %+v", s)
	}
	t.Setenv("DATABASE_URL", "postgres://a@b/c")
	if s := sourceOf(""); s.dsn != "postgres://a@b/c" || s.from != "DATABASE_URL" {
		t.Errorf("DATABASE_URL: %+v", s)
	}
	t.Setenv("WRITEAMP_DSN", "mysql://a@b/c")
	if s := sourceOf(""); s.dsn != "mysql://a@b/c" || s.dialect == nil || s.dialect.Name() != "mysql" {
		t.Errorf("WRITEAMP_DSN wins over DATABASE_URL, with its dialect: %+v", s)
	}
	if s := sourceOf("postgres://flag"); s.dsn != "postgres://flag" || s.from != "--dsn" || s.embedded {
		t.Errorf("--dsn wins: %+v", s)
	}
	if s := sourceOf("nosuch://x"); s.dialect != nil {
		t.Errorf("a DSN naming no dialect: %+v", s)
	}
}

// make dist ships one man page per command and four shells' completions.
func TestGenWritesManPagesAndCompletions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, _, err := run(t, "gen", "--man", dir+"/man", "--completions", dir+"/compl"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"man/writeamp.1", "man/writeamp-run.1", "man/writeamp-check.1", "compl/writeamp.bash", "compl/_writeamp", "compl/writeamp.fish", "compl/writeamp.ps1"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "man", "writeamp-gen.1")); err == nil {
		t.Error("the hidden gen command must not get a man page")
	}
}

// A '"' in a list flag is part of a name or label, or a one-line error
// (pflag's CSV reading gave a multi-line parse error).
func TestQuotesInListFlags(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	out, _, err := run(t, "compare", a, b, "--label", `before "v1",after "v2"`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `BEFORE "V1"`) || !strings.Contains(out, `AFTER "V2"`) {
		t.Errorf("labels with quotes:\n%s", out)
	}
	out, _, err = run(t, "compare", a, b, "--label", `"a,b"`, "--label", `c`)
	if err != nil || !strings.Contains(out, "A,B") {
		t.Errorf("a quoted label keeps its comma: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"measure", "--dsn", closedPG, "--schema", `"unclosed`, "--", "true"},
		{"snapshot", "--dsn", closedPG, "-o", "-", "--table", `"a`},
		{"compare", a, b, "--label", `"x,y`},
	} {
		_, _, err := run(t, args...)
		wantUsage(t, err, "never closed", args)
	}
}

// A budget naming an unknown metric is refused before anything is measured.
func TestCheckRefusesAnUnknownBudgetMetricBeforeConnecting(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, "check", "--dsn", closedPG, "--migration", "cli_test.go", "--budget", "leaf_insert/op<=+0%")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "unknown metric") || strings.Contains(err.Error(), "connect") {
		t.Errorf("exit %d: %v", exitCode(err), err)
	}
}

// Only the writeamp process sets GOMAXPROCS and the kernel wait
// (fitProcs), not these in-process tests, which run commands beside each
// other: their command trees ask for no kernel wait and leave Go's Ps.
func TestTheTestsDoNotFollowTheWorkers(t *testing.T) {
	t.Parallel()
	procs := runtime.GOMAXPROCS(0)
	o := dialects.OpenOptionsOf([]dialects.OpenOption{fitProcs(&app{}, procs+8, sourceOf("postgres://u@db/kc"))})
	if o.KernelWait || runtime.GOMAXPROCS(0) != procs {
		t.Errorf("a test's command tree planned the workers: kernel wait %v, GOMAXPROCS %d (was %d)", o.KernelWait, runtime.GOMAXPROCS(0), procs)
	}
}

// run and check plan the kernel wait for the dialect the DSN names, before
// connecting: PostgreSQL's connections can wait in the kernel, MySQL's not.
func TestKernelWaitFollowsTheDSNsDialect(t *testing.T) {
	t.Parallel()
	for dsn, want := range map[string]bool{
		"postgres://u@db/kc":   true,
		"host=db dbname=kc":    true,
		"":                     true, // the PG* environment or a throwaway PostgreSQL
		"mysql://u@db:3306/kc": false,
	} {
		_, got := sourceOf(dsn).dialect.(dialects.KernelWaiter)
		if got != want {
			t.Errorf("sourceOf(%q) waits in the kernel: %v, want %v", dsn, got, want)
		}
	}
}

// --top is each command's own: two command trees in parallel tests keep
// their own values, and a smaller --top shows fewer objects.
func TestTopIsTheCommandsOwn(t *testing.T) {
	t.Parallel()
	fixture := filepath.Join("..", "..", "reports", "testdata", "refresh_token_pg15.json")
	lines := map[string]int{}
	for _, top := range []string{"1", "0"} {
		out, errOut, err := run(t, "compare", "--top", top, fixture)
		if err != nil {
			t.Fatalf("compare --top %s: %v\n%s", top, err, errOut)
		}
		lines[top] = strings.Count(out, "\n")
	}
	if lines["1"] >= lines["0"] {
		t.Errorf("compare --top 1 printed %d lines, --top 0 (all) %d: want fewer", lines["1"], lines["0"])
	}
}
