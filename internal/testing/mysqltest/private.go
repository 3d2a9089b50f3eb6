package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// Private starts a throwaway mariadbd with extra server options (e.g.
// --performance-schema=ON), for a test that needs a configuration the shared
// server does not have, and returns its DSN. The server and its files are
// gone at the end of the test. It needs MariaDB's server binaries (make test
// installs them); without them the test is skipped, except under CI=true,
// where that is a failure. A bootstrap takes seconds.
func Private(t testing.TB, opts ...string) string {
	t.Helper()
	testenv.Heavy(t, "starts a MariaDB server of its own")
	b := bootstrap(t)
	return b.start(t, b.data, opts...)
}

// bootstrapped is a fresh data directory and the binaries to start it.
type bootstrapped struct {
	mariadbd, dir, data string
	userOpt             []string
}

func bootstrap(t testing.TB) *bootstrapped {
	t.Helper()
	mariadbd, install := findBinary("mariadbd", "/usr/sbin/mariadbd", "/usr/libexec/mariadbd"), findBinary("mariadb-install-db", "/usr/bin/mariadb-install-db")
	if mariadbd == "" || install == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mariadbd or mariadb-install-db not found under CI=true: install mariadb-server (scripts/services.sh does)")
		}
		t.Skip("mariadbd or mariadb-install-db not found: install mariadb-server to run this test")
	}
	dir, err := os.MkdirTemp("", "writeamp-mariadbd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var userOpt []string
	if os.Geteuid() == 0 {
		// mariadbd refuses to run as root; the files must be the mysql user's.
		u, err := user.Lookup("mysql")
		if err != nil {
			t.Fatalf("running as root needs the mysql user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		userOpt = []string{"--user=mysql"}
	}
	data := filepath.Join(dir, "data")
	// The bootstrap server cleans its tmpdir of #sql* files at startup as
	// any mariadbd does (spawn): under /tmp it deleted a temporary table
	// the shared server was using in a test beside this one ("Error on
	// delete of '/tmp/#sql-temptable-….MAI'", 2026-12-07; a #sql file of
	// the mysql user's in /tmp does not survive mariadb-install-db).
	tmp := filepath.Join(dir, "install.tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o1777) // the mysql user's too when the tests run as root
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir=" + tmp}, userOpt...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", install, err, out)
	}
	return &bootstrapped{mariadbd: mariadbd, dir: dir, data: data, userOpt: userOpt}
}

// start runs mariadbd on data (a directory of b.dir) and waits until it
// accepts connections; it is stopped at the end of the test.
func (b *bootstrapped) start(t testing.TB, data string, opts ...string) string {
	t.Helper()
	return b.spawn(t, data, opts...)(t)
}

// spawn starts mariadbd on data; the function it returns waits until the
// server accepts connections (two servers start side by side).
func (b *bootstrapped) spawn(t testing.TB, data string, opts ...string) func(testing.TB) string {
	t.Helper()
	mariadbd, dir, userOpt := b.mariadbd, filepath.Dir(data), b.userOpt
	name := filepath.Base(data)
	port := freePort(t)
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o1777) // the mysql user's too when the tests run as root
	args := append([]string{"--no-defaults", "--datadir=" + data, "--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(dir, name+".sock"), "--pid-file=" + filepath.Join(dir, name+".pid"), "--log-error=" + filepath.Join(dir, name+".err"),
		"--skip-log-bin", "--innodb-buffer-pool-size=32M",
		// A tmpdir of its own: at startup mariadbd deletes every #sql* file
		// of its tmpdir, and /tmp holds the shared server's temporary
		// tables of the tests running beside this one.
		"--tmpdir=" + tmp}, userOpt...)
	cmd := exec.Command(mariadbd, append(args, opts...)...)
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	dsn := fmt.Sprintf("mysql://root@127.0.0.1:%d/mysql", port)
	return func(t testing.TB) string {
		t.Helper()
		return awaitServer(t, dsn, dir, name, exited, opts)
	}
}

func awaitServer(t testing.TB, dsn, dir, name string, exited chan error, opts []string) string {
	cfg, err := my.Config(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return dsn
		}
		select {
		case werr := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, name+".err"))
			t.Fatalf("mariadbd %s exited: %v\n%s", strings.Join(opts, " "), werr, log)
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, name+".err"))
			t.Fatalf("mariadbd did not accept connections within 60 s: %v\n%s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func findBinary(name string, paths ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
