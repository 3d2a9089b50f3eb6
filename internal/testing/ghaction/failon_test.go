package ghaction

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeCheck is a writeamp whose check prints valid settings for
// --print-config and otherwise exits with code: the Action's mapping of
// each of check's codes through fail-on, without a database.
func fakeCheck(t *testing.T, code int) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "writeamp")
	script := `#!/bin/sh
for a in "$@"; do
  if [ "$a" = --print-config ]; then
    printf 'config: (none)\ndsn: postgres://u@h/d (input dsn)\nmigration: [m.sql]\nbudgets:\n  - budget: hot_ratio>=0.9\n'
    exit 0
  fi
done
echo "### writeamp check: exit ` + strconv.Itoa(code) + `" >writeamp-check.md
exit ` + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Every code of check through every fail-on: budget fails the job on 1-3,
// restore only on 2 and 3 (a database not as it was is never advisory
// there), never on none, and an advisory pass says which code it let through.
func TestFailOnMapsEveryExitCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		code         int
		failOn       string
		want         int
		verdict, ann string
	}{
		{0, "budget", 0, "pass", ""},
		{1, "budget", 1, "fail", "a write budget was exceeded"},
		{2, "budget", 2, "error", "could not measure (exit 2)"},
		{3, "budget", 3, "error", "the database is not as it was"},
		{1, "restore", 0, "fail", "a write budget was exceeded"},
		{2, "restore", 2, "error", "could not measure (exit 2)"},
		{3, "restore", 3, "error", "the database is not as it was"},
		{1, "never", 0, "fail", "a write budget was exceeded"},
		{3, "never", 0, "error", "the database is not as it was"},
	} {
		work := t.TempDir()
		summary, outputs := filepath.Join(work, "summary.md"), filepath.Join(work, "outputs")
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "action-check.sh"))
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs, "RUNNER_TEMP="+t.TempDir(),
			"WRITEAMP_ACTION_PATH="+root, "WRITEAMP_BIN="+fakeCheck(t, c.code),
			"INPUT_DSN=postgres://u@h/d", "INPUT_MIGRATION=m.sql", "INPUT_BUDGETS=hot_ratio>=0.9",
			"INPUT_FAIL_ON="+c.failOn, "INPUT_COMMENT=never")
		out, err := cmd.CombinedOutput()
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		outs, _ := os.ReadFile(outputs)
		sum, _ := os.ReadFile(summary)
		name := "check exit " + strconv.Itoa(c.code) + ", fail-on " + c.failOn
		if got != c.want {
			t.Errorf("%s: the step exited %d, want %d\n%s", name, got, c.want, out)
		}
		if !strings.Contains(string(outs), "exit-code="+strconv.Itoa(c.code)+"\n") || !strings.Contains(string(outs), "verdict="+c.verdict+"\n") {
			t.Errorf("%s: outputs %q, want exit-code %d and verdict %s", name, outs, c.code, c.verdict)
		}
		if c.ann != "" && !strings.Contains(string(out), "::error title=writeamp check::"+c.ann) {
			t.Errorf("%s: no annotation %q in\n%s", name, c.ann, out)
		}
		advisory := c.code != 0 && c.want == 0
		if strings.Contains(string(sum), "_Advisory (fail-on: "+c.failOn+"): writeamp check exited "+strconv.Itoa(c.code)) != advisory {
			t.Errorf("%s: advisory note %v in the summary, want %v:\n%s", name, !advisory, advisory, sum)
		}
	}
}
