package scratch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/jackc/pgx/v5"

	"github.com/writeamp/writeamp/pgembed"
)

// PostgresOptions say what to copy and with which binaries.
type PostgresOptions struct {
	// Bin is --pg-bin ("" finds the binaries of Major on this machine).
	Bin string
	// Major is the user's server's major version (15 for 15.x).
	Major int
	// SourceDSN is what pg_dump connects with ("" for the PG* environment),
	// SourceEnv its environment (the caller's, for PGPASSWORD and the like).
	SourceDSN string
	SourceEnv []string
	// Database is the user's database; User the role the command connects
	// as, made a superuser of the scratch server so that the command's own
	// user name works there and the restored objects are its own.
	Database, User string
	Log            io.Writer
}

// Postgres is a scratch PostgreSQL loaded from the user's database; each
// copy is CREATE DATABASE … TEMPLATE of the loaded one, on a server nobody
// else uses.
type Postgres struct {
	srv      *pgembed.Server
	o        PostgresOptions
	runID    string
	loaded   time.Duration
	disk     int64
	stopOnce sync.Once
	stopErr  error
}

// FindPostgresBin is the bin directory of the given major version on this
// machine holding what a scratch server needs: pg_config's, then
// /usr/lib/postgresql/MAJOR/bin, /usr/pgsql-MAJOR/bin, Homebrew's.
func FindPostgresBin(major int) (string, error) {
	var dirs []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	m := strconv.Itoa(major)
	dirs = append(dirs, "/usr/lib/postgresql/"+m+"/bin", "/usr/pgsql-"+m+"/bin", "/opt/homebrew/opt/postgresql@"+m+"/bin", "/usr/local/pgsql/bin")
	var seen []string
	for _, d := range dirs {
		if CheckPostgresBin(d) != nil {
			continue
		}
		v, err := postgresMajor(d)
		if err != nil {
			continue
		}
		if v == major {
			return d, nil
		}
		seen = append(seen, fmt.Sprintf("%s is %d", d, v))
	}
	found := ""
	if len(seen) > 0 {
		found = " (found: " + strings.Join(seen, "; ") + ")"
	}
	return "", fmt.Errorf("no PostgreSQL %d server binaries (initdb, postgres, pg_dump, pg_restore) on this machine%s: install them (Debian/Ubuntu: apt-get install postgresql-%d) and give their directory with --pg-bin, or measure on the database itself with --in-place", major, found, major)
}

// CheckPostgresBin says whether dir holds what a scratch server needs.
func CheckPostgresBin(dir string) error {
	var missing []string
	for _, b := range []string{"initdb", "postgres", "pg_dump", "pg_restore"} {
		if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s has no executable %s (want the bin directory of a PostgreSQL installation, e.g. /usr/lib/postgresql/17/bin)", dir, strings.Join(missing, ", "))
	}
	return nil
}

func postgresMajor(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(out)) // postgres (PostgreSQL) 15.20 (Debian ...)
	if len(f) < 3 {
		return 0, fmt.Errorf("postgres --version: %q", out)
	}
	return strconv.Atoi(strings.SplitN(f[2], ".", 2)[0])
}

// StartPostgres starts the scratch server and loads the database into it
// (pg_dump -Fc | pg_restore --no-owner --no-privileges: roles are the
// server's, not the database's, so objects belong to User there and
// GRANTs are not copied). On error nothing is left.
func StartPostgres(ctx context.Context, o PostgresOptions) (_ *Postgres, err error) {
	bin := o.Bin
	if bin == "" {
		if bin, err = FindPostgresBin(o.Major); err != nil {
			return nil, err
		}
	} else {
		if err := CheckPostgresBin(bin); err != nil {
			return nil, fmt.Errorf("--pg-bin: %w", err)
		}
		if v, err := postgresMajor(bin); err != nil || v != o.Major {
			return nil, fmt.Errorf("--pg-bin %s: PostgreSQL %d there (%v), but the database is on %d: the copy is measured on the same major version; give the bin directory of PostgreSQL %d", bin, v, err, o.Major, o.Major) //nolint:errorlint // err is nil when only the version differs, else the *exec.ExitError of postgres --version, whose ExitCode() main would take for its own
		}
	}
	b := make([]byte, 4)
	rand.Read(b)
	p := &Postgres{o: o, runID: hex.EncodeToString(b)}
	t0 := time.Now()
	// Not tied to ctx beyond the start: Stop ends it, after the copies' teardown.
	if p.srv, err = pgembed.StartLoopback(ctx, bin, o.Log); err != nil {
		return nil, fmt.Errorf("start a scratch PostgreSQL from %s: %w", bin, err)
	}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	if err := p.exec(ctx, "postgres", p.setup()...); err != nil {
		return nil, fmt.Errorf("scratch PostgreSQL: create the role and database: %w", err)
	}
	if err := p.load(ctx, bin); err != nil {
		return nil, err
	}
	p.loaded = time.Since(t0)
	p.disk = dirSize(p.srv.Dir)
	return p, nil
}

func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

func (p *Postgres) setup() []string {
	var q []string
	if p.o.User != "postgres" {
		q = append(q, "CREATE ROLE "+quoteIdent(p.o.User)+" SUPERUSER LOGIN")
	}
	// The throwaway server comes with a database of its own
	// (pgembed.Database): a user's database of that name replaces it.
	return append(q, "DROP DATABASE IF EXISTS "+quoteIdent(p.o.Database), "CREATE DATABASE "+quoteIdent(p.o.Database)+" OWNER "+quoteIdent(p.o.User))
}

// dsn is a URL for a database of the scratch server over loopback TCP.
func (p *Postgres) dsn(database, user string) string {
	u := url.URL{Scheme: "postgres", User: url.User(user), Host: "127.0.0.1:" + strconv.Itoa(p.srv.Port), Path: "/" + database, RawQuery: "sslmode=disable"}
	return u.String()
}

func (p *Postgres) exec(ctx context.Context, database string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, p.dsn(database, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// load pipes pg_dump of the user's database into pg_restore on the scratch server.
func (p *Postgres) load(ctx context.Context, bin string) error {
	args := []string{"-Fc", "-Z0"}
	if p.o.SourceDSN != "" {
		args = append(args, "-d", p.o.SourceDSN)
	}
	dump := exec.CommandContext(ctx, filepath.Join(bin, "pg_dump"), args...)
	dump.Env = p.o.SourceEnv
	restore := exec.CommandContext(ctx, filepath.Join(bin, "pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
		"-d", p.dsn(p.o.Database, p.o.User))
	restore.Env = withoutPG(os.Environ())
	pipe, err := dump.StdoutPipe()
	if err != nil {
		return err
	}
	restore.Stdin = pipe
	var dumpErr, restoreErr strings.Builder
	dump.Stderr, restore.Stderr = &dumpErr, &restoreErr
	if err := dump.Start(); err != nil {
		return fmt.Errorf("pg_dump: %w", err)
	}
	if err := restore.Start(); err != nil {
		dump.Process.Kill()
		dump.Wait()
		return fmt.Errorf("pg_restore: %w", err)
	}
	rerr := restore.Wait()
	if rerr != nil {
		dump.Process.Kill()
	}
	derr := dump.Wait()
	switch {
	case derr != nil && rerr == nil, derr != nil && dumpErr.Len() > 0:
		return fmt.Errorf("pg_dump of %s failed (it needs SELECT on every table, or run check with --in-place): %v\n%s", p.o.Database, derr, tail(dumpErr.String(), 10)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	case rerr != nil:
		return fmt.Errorf("loading %s into the scratch PostgreSQL failed (an extension missing from this machine's PostgreSQL? install it, or run check with --in-place): pg_restore: %v\n%s", p.o.Database, rerr, tail(restoreErr.String(), 10)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	return nil
}

// withoutPG drops the libpq variables: they name the user's server.
func withoutPG(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return out
}

func (p *Postgres) NewCopy(ctx context.Context, tag string) (string, string, error) {
	name := "writeamp_ck_" + p.runID + "_" + tag
	q := "CREATE DATABASE " + quoteIdent(name) + " TEMPLATE " + quoteIdent(p.o.Database)
	if p.o.Major >= 15 {
		// 15+ would log every block of the copy (WAL_LOG); FILE_COPY copies
		// the files after a checkpoint, as check's own TEMPLATE copies do.
		q += " STRATEGY FILE_COPY"
	}
	if err := p.exec(ctx, "postgres", q); err != nil {
		return "", "", fmt.Errorf("scratch PostgreSQL: copy %s: %w", p.o.Database, err)
	}
	return name, p.dsn(name, p.o.User), nil
}

func (p *Postgres) DropCopy(ctx context.Context, name string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return p.exec(cctx, "postgres", "DROP DATABASE IF EXISTS "+quoteIdent(name)+" WITH (FORCE)")
}

func (p *Postgres) Env(name string) []string {
	// Variables of the user's server the copy does not share are emptied
	// (an empty PGSERVICE names a service, so it is left alone).
	return []string{"PGHOST=127.0.0.1", "PGHOSTADDR=127.0.0.1", "PGPORT=" + strconv.Itoa(p.srv.Port), "PGDATABASE=" + name, "PGUSER=" + p.o.User,
		"PGPASSWORD=", "PGSSLMODE=disable", "PGOPTIONS="}
}

func (p *Postgres) Method() string {
	return fmt.Sprintf("a scratch PostgreSQL %d (%s, port %d, in %s) loaded with pg_dump | pg_restore --no-owner --no-privileges (objects owned by %s, GRANTs not copied), one CREATE DATABASE … TEMPLATE copy per side there",
		p.o.Major, p.srv.Bin, p.srv.Port, p.srv.Dir, p.o.User)
}
func (p *Postgres) Loaded() time.Duration { return p.loaded }
func (p *Postgres) Disk() int64           { return p.disk }

// Dir is the scratch server's directory (removed by Stop).
func (p *Postgres) Dir() string { return p.srv.Dir }

func (p *Postgres) Stop() error {
	p.stopOnce.Do(func() {
		if p.srv != nil {
			p.stopErr = p.srv.Stop()
		}
	})
	return p.stopErr
}

var _ Server = (*Postgres)(nil)
