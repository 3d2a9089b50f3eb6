package ghaction

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"go.yaml.in/yaml/v3"

	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

var root, _ = filepath.Abs(filepath.Join("..", "..", ".."))

type action struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			With  map[string]string `yaml:"with"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func envName(input string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(input, "-", "_"))
}

func TestActionPassesEveryInputToTheScript(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "action-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// plan, then setup-go only for version: source and the cache only for a
	// release (keyed and placed as plan says), then install, then check
	// with install's binary.
	idx := map[string]int{}
	for i, s := range a.Runs.Steps {
		switch {
		case s.ID == "plan" && strings.Contains(s.Run, "${{ github.action_path }}/scripts/action-install.sh\" plan"):
			idx["plan"] = i
		case strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "${{ github.action_path }}/go.mod" &&
			s.If == "steps.plan.outputs.mode == 'source'":
			idx["setup-go"] = i
		case strings.HasPrefix(s.Uses, "actions/cache@") && s.If == "steps.plan.outputs.mode == 'release'" &&
			s.With["path"] == "${{ steps.plan.outputs.dir }}" && s.With["key"] == "${{ steps.plan.outputs.key }}":
			idx["cache"] = i
		case s.ID == "install" && strings.Contains(s.Run, "${{ github.action_path }}/scripts/action-install.sh\" install") &&
			s.Env["INPUT_VERSION"] == "${{ inputs.version }}":
			idx["install"] = i
		case strings.Contains(s.Run, "${{ github.action_path }}/scripts/action-check.sh"):
			idx["check"] = i
		}
	}
	order := []string{"plan", "setup-go", "cache", "install", "check"}
	for i, name := range order {
		if n, ok := idx[name]; !ok || n != i {
			t.Fatalf("action.yml's steps must be %v in that order; found %v", order, idx)
		}
	}
	step := idx["check"]
	s := a.Runs.Steps[step]
	if s.Shell != "bash" || s.ID != "check" || s.Env["WRITEAMP_BIN"] != "${{ steps.install.outputs.bin }}" {
		t.Errorf("the script step: shell %q id %q WRITEAMP_BIN %q, want bash, check and install's bin", s.Shell, s.ID, s.Env["WRITEAMP_BIN"])
	}
	for _, need := range []string{"dsn", "migration", "budgets", "workload", "version", "args", "config"} {
		if _, ok := a.Inputs[need]; !ok {
			t.Errorf("no input %q", need)
		}
	}
	// The config file may give each of them (the script refuses a run
	// where neither does); a required input would make the file useless.
	for name, in := range a.Inputs {
		if in.Required {
			t.Errorf("input %s is required, but writeamp.yaml can give it", name)
		}
	}
	// Every input reaches the script as INPUT_<NAME> (a composite action
	// does not export inputs itself), and the script reads each.
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if got := s.Env[envName(name)]; got != "${{ inputs."+name+" }}" {
			t.Errorf("input %s: env %s = %q, want ${{ inputs.%s }}", name, envName(name), got, name)
		}
		if !strings.Contains(string(script), envName(name)) {
			t.Errorf("input %s: the script never reads %s", name, envName(name))
		}
	}
	// ... and the script reads no INPUT_ that is not passed.
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(string(script), -1) {
		read[m] = true
	}
	for v := range read {
		if _, ok := s.Env[v]; !ok {
			t.Errorf("the script reads %s, which action.yml does not pass", v)
		}
	}
	for name, o := range a.Outputs {
		if o.Value != "${{ steps.check.outputs."+name+" }}" || !strings.Contains(string(script), "out "+name+" ") {
			t.Errorf("output %s: value %q, or the script never sets it", name, o.Value)
		}
	}
}

// scratch is a database of its own for one run of the script, on a
// PostgreSQL 15 server of the test's own: the script's checks need nothing
// of the shared server, and holding it they were the queue's longest
// (20-50 s each).
func scratch(t *testing.T) string {
	t.Helper()
	srv := pgmatrix.Start(t, 15)
	db := srv.Open(t)
	name := fmt.Sprintf("wa_test_action_%d", os.Getpid())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"host": {srv.Dir}, "port": {fmt.Sprint(srv.Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + name, RawQuery: q.Encode()}).String()
}

type junit struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

var shared struct {
	once sync.Once
	bin  string
	err  error
}

// sharedBin is one writeamp build for the runs that do not test the
// install itself (a build per run would cost seconds each).
func sharedBin(t *testing.T) string {
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "wa-ghaction-bin")
		if err != nil {
			shared.err = err
			return
		}
		shared.bin = filepath.Join(dir, "writeamp")
		cmd := exec.Command("go", "build", "-ldflags", "-X main.Version=v0-shared", "-o", shared.bin, "./cmd/writeamp")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			shared.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.bin != "" {
		os.RemoveAll(filepath.Dir(shared.bin))
	}
	os.Exit(code)
}

// runAction runs the script as action.yml does: the inputs as INPUT_*
// variables, in the workspace, with the runner's files. Without a version
// input it gets install's binary as action.yml passes it (WRITEAMP_BIN);
// with one, the script installs it itself.
func runAction(t *testing.T, work string, inputs map[string]string) (int, string, map[string]string, string) {
	t.Helper()
	summary := filepath.Join(work, "summary.md")
	outputs := filepath.Join(work, "outputs")
	os.Remove(summary)
	os.Remove(outputs)
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "action-check.sh"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs, "RUNNER_TEMP="+t.TempDir(),
		"WRITEAMP_ACTION_PATH="+root, "WRITEAMP_ACTION_REF=v0-test")
	if _, ok := inputs["version"]; !ok {
		cmd.Env = append(cmd.Env, "WRITEAMP_BIN="+sharedBin(t))
	}
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, envName(k)+"="+v)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	sum, _ := os.ReadFile(summary)
	got := map[string]string{}
	if data, err := os.ReadFile(outputs); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			k, v, _ := strings.Cut(l, "=")
			got[k] = v
		}
	}
	return code, string(out), got, string(sum)
}

func TestActionScriptGatesAMigration(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("psql"); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip("psql not installed")
	}
	dsn := scratch(t)
	work := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No "drop table if exists jobs" first: check undoes its --schema after
	// each run, and would refuse a DROP it cannot undo.
	write("base.sql", `create table jobs (id int primary key, status text not null, touched_at int not null default 0) with (fillfactor = 70);
insert into jobs select g, 'ready', 0 from generate_series(1, 300) g;`)
	var w strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&w, "update jobs set touched_at = touched_at + 1 where id = %d;\n", i)
	}
	write("work.sql", w.String())
	write("good.sql", "create index jobs_failed on jobs(id) where status = 'failed';")
	write("bad.sql", "create index jobs_touched on jobs(touched_at);")
	inputs := map[string]string{
		"dsn":       dsn,
		"schema":    "base.sql",
		"budgets":   "hot_ratio>=0.9\n# a comment line is skipped\n  log_bytes_in_scope/op<=+100%  \n",
		"workload":  `psql "$WRITEAMP_DSN" -XAtq -v ON_ERROR_STOP=1 -f work.sql`,
		"args":      "--scope-schema public",
		"version":   "source",
		"junit":     "check.xml",
		"report":    "check.md",
		"result":    "check.json",
		"migration": "good.sql",
	}
	readJUnit := func() junit {
		var j junit
		data, err := os.ReadFile(filepath.Join(work, "check.xml"))
		if err != nil {
			t.Fatalf("no JUnit report: %v", err)
		}
		if err := xml.Unmarshal(data, &j); err != nil || len(j.Suites) != 1 {
			t.Fatalf("JUnit: %v %s", err, data)
		}
		return j
	}
	// An unrelated partial index: within budget, exit 0.
	code, out, outputs, summary := runAction(t, work, inputs)
	if code != 0 || outputs["exit-code"] != "0" || outputs["verdict"] != "pass" {
		t.Fatalf("within budget: exit %d, outputs %v\n%s", code, outputs, out)
	}
	if !strings.Contains(summary, "writeamp") || !strings.Contains(summary, "**Findings") || !strings.Contains(summary, "hot_ratio>=0.9") {
		t.Errorf("step summary:\n%s", summary)
	}
	if j := readJUnit(); j.Suites[0].Failures != 0 || j.Suites[0].Tests == 0 {
		t.Errorf("JUnit of a pass: %+v", j)
	}
	if !strings.Contains(out, "writeamp v0-test") {
		t.Errorf("version source: the build does not report the action's ref as its version:\n%.2000s", out)
	}
	for _, f := range []string{"check.md", "check.json"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// An index on the updated column: HOT is lost, the budget breaks, exit 1.
	inputs["migration"] = "bad.sql"
	delete(inputs, "version")
	code, out, outputs, summary = runAction(t, work, inputs)
	if code != 1 || outputs["exit-code"] != "1" || outputs["verdict"] != "fail" {
		t.Fatalf("broken budget: exit %d, outputs %v\n%s", code, outputs, out)
	}
	if !strings.Contains(out, "::error title=writeamp check::a write budget was exceeded") {
		t.Errorf("no error annotation:\n%.3000s", out)
	}
	// check read work.sql inside the bash -c workload, and warned before running.
	if !strings.Contains(out, "includes column touched_at, which the workload updates") {
		t.Errorf("no warning that the migration indexes an updated column:\n%.3000s", out)
	}
	if !strings.Contains(summary, "FAIL") || !strings.Contains(summary, "jobs_touched") {
		t.Errorf("step summary of a failure:\n%s", summary)
	}
	j := readJUnit()
	var failed []string
	for _, c := range j.Suites[0].Cases {
		if c.Failure != nil {
			failed = append(failed, c.Name)
		}
	}
	sort.Strings(failed)
	if j.Suites[0].Failures == 0 || len(failed) == 0 {
		t.Errorf("JUnit of a failure: %+v", j)
	}
	// A missing input: exit 2 before anything runs, said in the summary.
	delete(inputs, "budgets")
	code, out, outputs, summary = runAction(t, work, inputs)
	if code != 2 || outputs["verdict"] != "error" || !strings.Contains(out, "no budgets: give input budgets") || !strings.Contains(summary, "could not run") {
		t.Errorf("missing budgets: exit %d %v\n%s\n%s", code, outputs, out, summary)
	}
}

// The workflow in docs/check-ci.md uses the action with inputs it
// has, all the required ones, and a PostgreSQL service container.
func TestTheDocsWorkflowUsesTheAction(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "check-ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)`\\.github/workflows/writeamp-check\\.yml`:\\s*```yaml\\n(.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("no workflow in docs/check-ci.md")
	}
	var wf struct {
		Jobs map[string]struct {
			Services map[string]struct {
				Image string `yaml:"image"`
			} `yaml:"services"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(block[1], &wf); err != nil {
		t.Fatalf("the docs' workflow is not YAML: %v", err)
	}
	job := wf.Jobs["check"]
	if !strings.HasPrefix(job.Services["postgres"].Image, "postgres:") {
		t.Errorf("no PostgreSQL service container: %+v", job.Services)
	}
	used := false
	for _, s := range job.Steps {
		if !strings.HasPrefix(s.Uses, "writeamp/writeamp@") {
			continue
		}
		used = true
		for k := range s.With {
			if _, ok := a.Inputs[k]; !ok {
				t.Errorf("the docs pass input %q, which action.yml does not have", k)
			}
		}
		for name, in := range a.Inputs {
			if in.Required && s.With[name] == "" {
				t.Errorf("the docs leave out the required input %q", name)
			}
		}
	}
	if !used {
		t.Error("the docs' workflow does not use the action")
	}
}
