package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// -o follows a symlink to its target and leaves the link a link.
func TestOutputThroughASymlinkKeepsTheLink(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	os.WriteFile(target, []byte("old"), 0o640)
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "compare", a, b, "--format", "json", "-o", link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(target)
	if !strings.Contains(string(data), `"schema_version"`) {
		t.Errorf("the link's target was not written: %q", data[:min(len(data), 40)])
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode changed to %v, want 0640 as it was", st.Mode().Perm())
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("new-target", dangling)
	if _, _, err := run(t, "compare", a, b, "-o", dangling); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("a dangling symlink was replaced by a file")
	}
	if _, err := os.Stat(filepath.Join(dir, "new-target")); err != nil {
		t.Errorf("the dangling link's target was not created: %v", err)
	}
}

// -o into a FIFO writes to its reader and the FIFO stays a FIFO; with no
// reader the error says so at once instead of replacing or blocking.
func TestOutputIntoAFIFO(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err := run(t, "compare", a, b, "-o", fifo)
	if err == nil || !strings.Contains(err.Error(), "nobody is reading") || time.Since(start) > 5*time.Second {
		t.Errorf("no reader: %v after %s", err, time.Since(start))
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens
		if err != nil {
			got <- err.Error()
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- string(data)
	}()
	// The reader must be waiting before the writer opens.
	var err2 error
	for i := 0; i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
		if _, _, err2 = run(t, "compare", a, b, "-o", fifo); err2 == nil {
			break
		}
	}
	if err2 != nil {
		t.Fatal(err2)
	}
	if s := <-got; !strings.Contains(s, "BASELINE") {
		t.Errorf("the reader got %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
}

// -o /dev/null as root replaced the system's /dev/null with a file. The test
// writes to a null device of its own (mknod, as root), never the system's.
func TestOutputToADeviceWritesThrough(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	null := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3 /* makedev(1, 3): the null device */); err != nil {
		t.Skipf("mknod needs root: %v", err)
	}
	if _, _, err := run(t, "compare", a, b, "-o", null); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("the null device was replaced: %v %v", fi.Mode(), err)
	}
}

// A new report file is created like any other file: 0666 less the umask.
func TestOutputNewFileModeFollowsTheUmask(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	out := filepath.Join(t.TempDir(), "report.txt")
	if _, _, err := run(t, "compare", a, b, "-o", out); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644: %v", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary files left next to the report: %v", entries)
	}
}

// `--junit -` and `--result -` write to stdout (they panicked: nil writer).
func TestCheckJUnitAndResultToStdout(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	m := write(t, t.TempDir(), "m.sql", "create index idx_u on offline_user_session (user_id);")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--variant", "coarse", "--logins", "20", "--refreshes-per-login", "2",
		"--migration", m, "--budget", "rows_updated[offline_user_session]>=0", "--junit", "-", "--result", "-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "<testsuite") || !strings.Contains(out, `"schema_version": 1`) {
		t.Errorf("stdout has no JUnit or result JSON:\n%.2000s", out)
	}
}

// Inputs that never end (devices, FIFOs) are refused at once, naming the file.
func TestInputsThatNeverEndAreRefused(t *testing.T) {
	t.Parallel()
	a, _ := savedRuns(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	syscall.Mkfifo(fifo, 0o644)
	big := filepath.Join(t.TempDir(), "big.json")
	f, _ := os.Create(big)
	f.Truncate(257 << 20) // sparse: takes no disk
	f.Close()
	for _, args := range [][]string{
		{"compare", a, "/dev/urandom"},
		{"compare", a, "/dev/zero"},
		{"compare", a, fifo},
		{"compare", a, big},
		{"plan", "/dev/zero", "--rate", "5/s"},
		{"diff", "/dev/zero", fifo},
		{"check", "--migration", "/dev/zero", "--dsn", "postgres://u@127.0.0.1:1/d"},
		{"check", "--migration", fifo, "--dsn", "postgres://u@127.0.0.1:1/d"},
	} {
		done := make(chan error, 1)
		go func() { _, _, err := run(t, args...); done <- err }()
		select {
		case err := <-done:
			wantUsage(t, err, "", args)
			if err != nil && !strings.Contains(err.Error(), "regular file") && !strings.Contains(err.Error(), "MiB") {
				t.Errorf("%v: %v does not say why", args, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v hangs", args)
		}
	}
}
