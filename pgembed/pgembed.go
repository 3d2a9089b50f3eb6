package pgembed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries explains how to get a server, or to bring one.
var ErrNoBinaries = errors.New(`no PostgreSQL server binaries (initdb, postgres) were found in PATH, /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin, /usr/local/pgsql/bin or /opt/homebrew/opt/postgresql*/bin. ` +
	`writeamp needs them to start a throwaway server when no --dsn is given. Install them (Debian/Ubuntu: apt-get install postgresql; Fedora/RHEL: dnf install postgresql-server postgresql-contrib; macOS: brew install postgresql), ` +
	`or measure an existing test database with --dsn postgres://user@host:5432/db (or set DATABASE_URL or the PG* variables)`)

// candidates are the directories searched for initdb and postgres, best first.
func candidates() []string {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(r))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/opt/homebrew/opt/postgresql*/bin"} {
		m, _ := filepath.Glob(pattern)
		// Highest major version first.
		sort.Slice(m, func(i, j int) bool { return versionOf(m[i]) > versionOf(m[j]) })
		dirs = append(dirs, m...)
	}
	return append(dirs, "/usr/local/pgsql/bin")
}

func versionOf(dir string) int {
	for _, part := range strings.FieldsFunc(dir, func(r rune) bool { return r < '0' || r > '9' }) {
		if n, err := strconv.Atoi(part); err == nil {
			return n
		}
	}
	return 0
}

// findBinaries is FindBinaries; tests substitute a directory of fakes.
var findBinaries = FindBinaries

// FindBinaries returns a directory holding both initdb and postgres.
func FindBinaries() (string, error) {
	for _, d := range candidates() {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Server is a running throwaway PostgreSQL.
type Server struct {
	Dir  string // holds the data directory, the socket and the log
	Port int
	Bin  string
	// Loopback: the server also listens on 127.0.0.1:Port, for clients
	// that cannot use a socket (a wrapped command given a TCP DSN).
	Loopback bool
	cmd      *exec.Cmd
	cred     *owner
	done     chan error
}

// DSN connects over the socket in Dir as the bootstrap superuser, to the
// server's own database (Database).
func (s *Server) DSN() string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", s.Dir, s.Port, Database)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// BinEnv names the variable that chooses the server binaries, like --pg-bin.
const BinEnv = "WRITEAMP_PG_BIN"

// CheckBinaries says whether dir holds a usable initdb and postgres; the
// error names what is missing there.
func CheckBinaries(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (want the bin directory of a PostgreSQL installation, holding initdb and postgres)", dir)
	}
	var missing []string
	for _, b := range []string{"initdb", "postgres"} {
		if !isExec(filepath.Join(dir, b)) {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s has no executable %s (want the bin directory of a PostgreSQL installation, e.g. /usr/lib/postgresql/17/bin)", dir, strings.Join(missing, " or "))
	}
	return nil
}

// Start creates and starts a server from the binaries found on this machine
// (or in $WRITEAMP_PG_BIN); the caller must Stop it.
func Start(ctx context.Context, log io.Writer) (*Server, error) {
	return StartBin(ctx, os.Getenv(BinEnv), log)
}

// StartBin is Start with the server binaries in bin ("" = look for them), so
// one workload can be measured on several major versions.
func StartBin(ctx context.Context, bin string, log io.Writer) (*Server, error) {
	return start(ctx, bin, log, false)
}

// StartLoopback is StartBin with the server listening on 127.0.0.1 too.
func StartLoopback(ctx context.Context, bin string, log io.Writer) (*Server, error) {
	return start(ctx, bin, log, true)
}

func start(ctx context.Context, bin string, log io.Writer, loopback bool) (_ *Server, err error) {
	if bin == "" {
		if bin, err = findBinaries(); err != nil {
			return nil, err
		}
	} else if err := CheckBinaries(bin); err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "writeamp-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Bin: bin, cred: cred, Loopback: loopback}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if err := cred.chown(dir); err != nil {
		return nil, err
	}
	if s.Port, err = freePort(); err != nil {
		return nil, err
	}
	if log != nil {
		fmt.Fprintf(log, "starting a throwaway PostgreSQL (%s) in %s\n", bin, dir)
	}
	if err := s.initData(ctx); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	_ = cred.chown(logf.Name())
	if err := s.launch(ctx, logf); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) launch(ctx context.Context, logf *os.File) error {
	// Not tied to ctx: an interrupt must not kill the server before the
	// workload's cleanup ran; Stop ends it.
	listen := ""
	if s.Loopback {
		listen = "127.0.0.1"
	}
	s.cmd = s.command(context.Background(), "postgres", "-D", filepath.Join(s.Dir, "data"), "-p", strconv.Itoa(s.Port),
		"-k", s.Dir, "-c", "listen_addresses="+listen, "-c", "logging_collector=off")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		logText, _ := os.ReadFile(logf.Name())
		return fmt.Errorf("%w\n%s", err, tail(string(logText), 15))
	}
	return nil
}

// Restart stops the server (fast shutdown) and starts it again on the same
// data directory and port: tests use it to play a restart mid-measurement.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.shutdown(); err != nil {
		return err
	}
	return s.relaunch(ctx)
}

// shutdown stops the postmaster: fast shutdown, then kill.
func (s *Server) shutdown() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = interrupt(s.cmd.Process)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		killGroup(s.cmd.Process)
		<-s.done
	}
	s.cmd = nil
	return nil
}

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, filepath.Join(s.Bin, name), args...)
	c.Dir = s.Dir
	c.SysProcAttr = s.cred.procAttr()
	c.Env = append(cleanEnv(os.Environ()), "LC_ALL=C", "LANG=C")
	return c
}

// cleanEnv drops the caller's libpq variables (PGPORT, PGDATA, ...): they
// describe the user's server, not the throwaway one, and even an empty one
// (PGPORT=) makes the server refuse to start.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return out
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("the throwaway postgres exited during startup: %v", err) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, s.DSN())
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the throwaway postgres did not accept connections within %s: %w", limit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the server down (fast shutdown, then kill) and removes its directory.
func (s *Server) Stop() error {
	var errs []error
	if err := s.shutdown(); err != nil {
		errs = append(errs, err)
	}
	if s.Dir != "" {
		if err := os.RemoveAll(s.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
