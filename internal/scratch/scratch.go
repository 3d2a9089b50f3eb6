package scratch

import (
	"context"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Server is a loaded scratch server: the copies check measures on are made
// in it from the loaded database.
type Server interface {
	// NewCopy makes a fresh copy of the loaded database for one side and
	// repetition (tag) and returns its name and a DSN for it.
	NewCopy(ctx context.Context, tag string) (name, dsn string, err error)
	// DropCopy removes a copy NewCopy made.
	DropCopy(ctx context.Context, name string) error
	// Env points a client's environment at a copy (PGHOST, MYSQL_TCP_PORT ...).
	Env(name string) []string
	// Method, Loaded and Disk describe what the copy cost: how it was made,
	// how long starting and loading took, and the directory's size.
	Method() string
	Loaded() time.Duration
	Disk() int64
	// Stop ends the server and removes its directory; it is safe to call
	// twice.
	Stop() error
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// find returns the first of names found in dirs, then on PATH.
func find(dirs []string, names ...string) string {
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errorLines are the lines of a server tool's output that say what went
// wrong ([ERROR], ERROR:, FATAL), else its last n lines: mariadb-install-db
// ends every failure with the same advice, after the line that matters.
func errorLines(s string, n int) string {
	var errs []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "[ERROR]") || strings.Contains(l, "ERROR:") || strings.Contains(l, "FATAL") {
			errs = append(errs, l)
		}
	}
	if len(errs) == 0 {
		return tail(s, n)
	}
	return tail(strings.Join(errs, "\n"), n)
}
