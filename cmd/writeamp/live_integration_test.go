package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// Off a terminal (a pipe, a file, a CI log) measure --interval writes its
// notes and report with no control character: the live line is terminal-only.
// On a terminal (util-linux `script` gives the command one) the line is
// drawn in place each second and erased before the report.
func TestLiveLineOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	bin := buildBinary(t)

	cmd := exec.Command(bin, "measure", "--dsn", dsn, "--interval", "1s", "--", "sleep", "2.5")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("measure: %v\n%s", err, errb.String())
	}
	if strings.ContainsAny(errb.String()+out.String(), "\r\x1b") {
		t.Errorf("control characters off a terminal:\nstderr %q\nstdout %q", errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "timeline: rate per second") || !strings.Contains(out.String(), "log bytes/s") {
		t.Errorf("the table has no timeline:\n%s", out.String())
	}

	if _, err := exec.LookPath("script"); err != nil {
		if testenv.CI() {
			t.Fatalf("util-linux script not installed under CI=true: %v", err)
		}
		t.Skipf("no script(1) to give the command a terminal: %v", err)
	}
	// without --interval: the live line still shows (each second), nothing is stored
	tty := exec.Command("script", "-q", "-e", "-c", bin+" measure --dsn '"+dsn+"' --format json -- sleep 2.5", "/dev/null")
	got, err := tty.CombinedOutput()
	if err != nil {
		t.Fatalf("under script: %v\n%q", err, got)
	}
	s := string(got)
	if !strings.Contains(s, clearLine+"measuring 1s · log ") || !strings.Contains(s, clearLine+"measuring 2s · log ") {
		t.Errorf("no live line redrawn each second on a terminal: %q", s)
	}
	if strings.Contains(s, `"samples"`) {
		t.Errorf("without --interval nothing is stored: %q", s)
	}
	// erased before the report: the last line drawn is followed by the erase
	last := strings.LastIndex(s, clearLine+"measuring")
	if !strings.Contains(s[last+len(clearLine):], clearLine) {
		t.Errorf("the live line is not erased at the end: %q", s[last:])
	}
}
