package scratch

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	driver "github.com/go-sql-driver/mysql"
)

// MariaDBOptions say what to copy: the user's server and database, and
// the server options the measurement relies on (performance_schema ...).
type MariaDBOptions struct {
	Source   *driver.Config
	Database string
	Args     []string
	Log      io.Writer
}

// MariaDB is a scratch MariaDB/MySQL server from this machine's binaries,
// with a dump of the user's database (mariadb-dump/mysqldump); each copy
// is the dump loaded again under the database's own name, so statements
// that qualify names with it work on the copy.
type MariaDB struct {
	o                         MariaDBOptions
	dir, server, client, dump string
	port                      int
	cmd                       *exec.Cmd
	done                      chan error
	loaded                    time.Duration
	disk                      int64
	stopOnce                  sync.Once
	stopErr                   error
	version                   string
}

var mysqlDirs = []string{"/usr/sbin", "/usr/libexec", "/usr/local/mysql/bin", "/usr/local/bin", "/usr/bin"}

// StartMariaDB starts the scratch server and dumps the database for it.
// On error nothing is left.
func StartMariaDB(ctx context.Context, o MariaDBOptions) (_ *MariaDB, err error) {
	m := &MariaDB{o: o}
	m.server = find(mysqlDirs, "mariadbd", "mysqld")
	install := find(mysqlDirs, "mariadb-install-db", "mysql_install_db")
	m.client = find(mysqlDirs, "mariadb", "mysql")
	m.dump = find(mysqlDirs, "mariadb-dump", "mysqldump")
	if m.server == "" || m.client == "" || m.dump == "" || (install == "" && !strings.HasSuffix(m.server, "mysqld")) {
		return nil, fmt.Errorf("no MariaDB/MySQL server binaries on this machine (want mariadbd or mysqld, mariadb-install-db, the mariadb/mysql client and mariadb-dump/mysqldump): install them (Debian/Ubuntu: apt-get install mariadb-server) or measure on the database itself with --in-place")
	}
	if out, err := exec.Command(m.server, "--version").Output(); err == nil {
		m.version = strings.TrimSpace(string(out))
	}
	t0 := time.Now()
	if m.dir, err = os.MkdirTemp("", "writeamp-my-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			m.Stop()
		}
	}()
	if m.port, err = freePort(); err != nil {
		return nil, err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "starting a scratch server (%s) in %s\n", m.server, m.dir)
	}
	data := filepath.Join(m.dir, "data")
	// A tmpdir of its own: a starting mariadbd deletes the #sql temporary
	// files it finds in its tmpdir, and with /tmp shared, scratch servers
	// (and their bootstraps) started together deleted each other's.
	tmp := filepath.Join(m.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	var user []string
	if os.Geteuid() == 0 { // mariadbd refuses to run as root unless told to
		user = []string{"--user=root"}
	}
	var initCmd *exec.Cmd
	if install != "" {
		initCmd = exec.CommandContext(ctx, install, append([]string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp, "--auth-root-authentication-method=normal", "--skip-test-db"}, user...)...)
	} else {
		initCmd = exec.CommandContext(ctx, m.server, append([]string{"--no-defaults", "--initialize-insecure", "--datadir=" + data, "--tmpdir=" + tmp}, user...)...)
	}
	if out, err := initCmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("scratch server: %s failed: %v\n%s", filepath.Base(initCmd.Path), err, errorLines(string(out), 10)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp, "--socket=" + filepath.Join(m.dir, "mysqld.sock"),
		"--port=" + strconv.Itoa(m.port), "--bind-address=127.0.0.1", "--pid-file=" + filepath.Join(m.dir, "mysqld.pid"),
		"--log-error=" + filepath.Join(m.dir, "error.log"), "--innodb-buffer-pool-size=128M"}, user...)
	// Not tied to ctx: Stop ends it once the copies are dropped.
	m.cmd = exec.Command(m.server, append(args, o.Args...)...)
	m.cmd.SysProcAttr = ownGroup()
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("scratch server: start %s: %w", m.server, err)
	}
	m.done = make(chan error, 1)
	go func() { m.done <- m.cmd.Wait() }()
	if err := m.waitReady(ctx, 60*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(m.dir, "error.log"))
		return nil, fmt.Errorf("%w\n%s", err, tail(string(log), 10))
	}
	if err := m.dumpSource(ctx); err != nil {
		return nil, err
	}
	m.loaded = time.Since(t0)
	m.disk = dirSize(m.dir)
	return m, nil
}

func (m *MariaDB) rootDSN(database string) string {
	c := driver.NewConfig()
	c.User, c.Net, c.Addr, c.DBName = "root", "tcp", "127.0.0.1:"+strconv.Itoa(m.port), database
	c.Timeout = 5 * time.Second
	return c.FormatDSN()
}

func (m *MariaDB) waitReady(ctx context.Context, limit time.Duration) error {
	db, err := sql.Open("mysql", m.rootDSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(limit)
	for {
		select {
		case err := <-m.done:
			m.done <- err
			return fmt.Errorf("the scratch server exited during startup: %v", err) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
		default:
		}
		if err = db.PingContext(ctx); err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the scratch server did not accept connections within %s: %w", limit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dumpSource writes the database's dump (schema, data, routines,
// triggers) into the scratch directory.
func (m *MariaDB) dumpSource(ctx context.Context) error {
	s := m.o.Source
	args := []string{"--no-defaults", "--single-transaction", "--routines", "--triggers", "--hex-blob", "-u", s.User}
	switch s.Net {
	case "unix":
		args = append(args, "--socket="+s.Addr)
	default:
		host, port, _ := strings.Cut(s.Addr, ":")
		args = append(args, "-h", host, "--protocol=tcp")
		if port != "" {
			args = append(args, "-P", port)
		}
	}
	f, err := os.Create(filepath.Join(m.dir, "dump.sql"))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, m.dump, append(args, m.o.Database)...)
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+s.Passwd)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s of %s failed (it needs SELECT, SHOW VIEW and TRIGGER on it, or run check with --in-place): %v\n%s", filepath.Base(m.dump), m.o.Database, err, tail(stderr.String(), 10)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	return nil
}

func (m *MariaDB) exec(ctx context.Context, stmts ...string) error {
	db, err := sql.Open("mysql", m.rootDSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func quoteMy(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (m *MariaDB) NewCopy(ctx context.Context, tag string) (string, string, error) {
	name := m.o.Database
	if err := m.exec(ctx, "DROP DATABASE IF EXISTS "+quoteMy(name), "CREATE DATABASE "+quoteMy(name)); err != nil {
		return "", "", fmt.Errorf("scratch server: %w", err)
	}
	in, err := os.Open(filepath.Join(m.dir, "dump.sql"))
	if err != nil {
		return "", "", err
	}
	defer in.Close()
	cmd := exec.CommandContext(ctx, m.client, "--no-defaults", "-h", "127.0.0.1", "--protocol=tcp", "-P", strconv.Itoa(m.port), "-u", "root", name)
	cmd.Stdin = in
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("scratch server: loading the dump of %s: %v\n%s", name, err, tail(string(out), 10)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	if d := dirSize(m.dir); d > m.disk {
		m.disk = d
	}
	u := url.URL{Scheme: "mysql", User: url.User("root"), Host: "127.0.0.1:" + strconv.Itoa(m.port), Path: "/" + name}
	return name, u.String(), nil
}

func (m *MariaDB) DropCopy(ctx context.Context, name string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return m.exec(cctx, "DROP DATABASE IF EXISTS "+quoteMy(name))
}

func (m *MariaDB) Env(name string) []string {
	return []string{"MYSQL_HOST=127.0.0.1", "MYSQL_TCP_PORT=" + strconv.Itoa(m.port), "MYSQL_UNIX_PORT=" + filepath.Join(m.dir, "mysqld.sock"), "MYSQL_PWD="}
}

func (m *MariaDB) Method() string {
	return fmt.Sprintf("a scratch server (%s, port %d, in %s) loaded with %s of %s, the dump loaded again for each side", m.version, m.port, m.dir, filepath.Base(m.dump), m.o.Database)
}
func (m *MariaDB) Loaded() time.Duration { return m.loaded }
func (m *MariaDB) Disk() int64           { return m.disk }

// Dir is the scratch server's directory (removed by Stop).
func (m *MariaDB) Dir() string { return m.dir }

func (m *MariaDB) Stop() error {
	m.stopOnce.Do(func() {
		if m.cmd != nil && m.cmd.Process != nil {
			_ = terminate(m.cmd.Process)
			select {
			case <-m.done:
			case <-time.After(30 * time.Second):
				killGroup(m.cmd.Process)
				<-m.done
			}
		}
		if m.dir != "" {
			m.stopErr = os.RemoveAll(m.dir)
		}
	})
	return m.stopErr
}

var _ Server = (*MariaDB)(nil)
