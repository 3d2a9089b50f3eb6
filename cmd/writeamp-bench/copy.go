package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/scratch"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/queries"
)

// copyDB is the database the copy rows copy, on a server of the bench's own.
const copyDB = "writeamp_bench_copy"

// copyRows are the copies check -- COMMAND measures on, against the same
// copy made by hand: CREATE DATABASE … TEMPLATE as the Cloner sends it
// (its clone_create block) against createdb -T, and the scratch server
// check loads from a dump (internal/scratch.StartPostgres) against
// pg_dump | pg_restore into a fresh database of a server started the same
// way. Everything runs on throwaway servers of the bench's own: a copy of
// a database of this size, and the checkpoints FILE_COPY takes, would
// weigh on everyone using the shared server.
func copyRows(ctx context.Context, t *progressTable, srv dialects.Server) {
	size, err := humanize.ParseBytes(*copySize)
	if err != nil {
		fatal("-copy-size: " + err.Error())
	}
	reps := *copyReps
	if *quick {
		size, reps = 64<<20, 1
	}
	major := srv.VersionNum / 10000
	src, bin, admin, stop := throwawayLike(ctx, major, "copy rows")
	defer stop()
	s, err := pg.Dialect{}.Probe(ctx, admin)
	if err != nil {
		fatal("copy rows: " + err.Error())
	}
	t0 := time.Now()
	got := fillCopyDB(ctx, admin, src.Port, int64(size))
	fmt.Fprintf(os.Stderr, "bench: copy rows: %s database generated in %s on a throwaway %s (%s)\n", humanize.IBytes(uint64(got)), time.Since(t0).Round(time.Second), s, bin)
	templateRow(ctx, t, admin, s, bin, src.Port, got, reps)
	scratchRow(ctx, t, admin, bin, major, src.Port, got, reps)
}

// throwawayLike starts a throwaway PostgreSQL of the measured server's
// major from the local binaries and opens its admin database; stop closes
// and stops both. group names the rows in a fatal error.
func throwawayLike(ctx context.Context, major int, group string) (srv *pgembed.Server, bin string, admin *sql.DB, stop func()) {
	bin, err := scratch.FindPostgresBin(major)
	if err != nil {
		fatal(group + ": " + err.Error())
	}
	srv, err = pgembed.StartLoopback(ctx, bin, nil)
	if err != nil {
		fatal(group + ": the throwaway server: " + err.Error())
	}
	admin, err = pg.Dialect{}.Open(ctx, loopbackDSN(srv.Port, pgembed.Database))
	if err != nil {
		_ = srv.Stop()
		fatal(group + ": " + err.Error())
	}
	return srv, bin, admin, func() { admin.Close(); _ = srv.Stop() }
}

func loopbackDSN(port int, database string) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=%s sslmode=disable", port, database)
}

// fillCopyDB creates copyDB with two tables of generate_series rows, each
// with its indexes (a restore builds them, a file copy copies them), until
// the database is at least size bytes, and returns its size.
func fillCopyDB(ctx context.Context, admin *sql.DB, port int, size int64) int64 {
	mustExec(admin, `CREATE DATABASE `+copyDB)
	db, err := pg.Dialect{}.Open(ctx, loopbackDSN(port, copyDB))
	if err != nil {
		fatal("copy rows: " + err.Error())
	}
	defer db.Close()
	mustExec(db, `CREATE TABLE accounts (id bigint PRIMARY KEY, k int, filler text)`)
	mustExec(db, `CREATE INDEX ON accounts (k)`)
	mustExec(db, `CREATE TABLE events (id bigint PRIMARY KEY, account_id bigint, at timestamptz, payload text)`)
	mustExec(db, `CREATE INDEX ON events (account_id, at)`)
	dbSize := func() int64 {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
			fatal("copy rows: " + err.Error())
		}
		return n
	}
	// The indexes exist from the start, so the size read after each chunk
	// is the database's whole size: it ends at most a chunk (its rows and
	// their index entries) above the size asked for.
	const chunk = 100000
	for n := 0; dbSize() < size; n += chunk {
		mustExec(db, fmt.Sprintf(`INSERT INTO accounts SELECT g, g %% 1000, repeat(md5(g::text), 6) FROM generate_series(%d, %d) g`, n+1, n+chunk))
		mustExec(db, fmt.Sprintf(`INSERT INTO events SELECT g, g %% %d + 1, '2026-01-01'::timestamptz + g * interval '1 s', repeat(md5((-g)::text), 3) FROM generate_series(%d, %d) g`, n+chunk, n/2+1, n/2+chunk/2))
	}
	mustExec(db, `VACUUM ANALYZE`)
	got := dbSize()
	db.Close()
	// A copy on the server needs nobody connected to the database: the
	// pool's backends are gone only once they have exited.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, copyDB).Scan(&n); err != nil {
			fatal("copy rows: " + err.Error())
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			fatal(fmt.Sprintf("copy rows: %d sessions still connected to %s", n, copyDB))
		}
	}
	return got
}

// pairs runs wa and peer reps times, alternating which goes first so the
// machine's drift and the page cache favour neither; between and before
// the timed steps, settle (untimed) leaves the server as it was.
func pairs(reps int, wa, peer func() time.Duration, settle func()) (was, peers, ratios []float64) {
	for i := 0; i < reps; i++ {
		var w, p time.Duration
		if i%2 == 0 {
			settle()
			w = wa()
			settle()
			p = peer()
		} else {
			settle()
			p = peer()
			settle()
			w = wa()
		}
		fmt.Fprintf(os.Stderr, "bench: copy pair %d: writeamp %.2f s, peer %.2f s\n", i+1, w.Seconds(), p.Seconds())
		was, peers, ratios = append(was, w.Seconds()), append(peers, p.Seconds()), append(ratios, w.Seconds()/p.Seconds())
	}
	sort.Float64s(ratios)
	return was, peers, ratios
}

// templateRow times the Cloner's clone_create block (the text check sends
// for this server's version, quoted as check quotes) against createdb -T
// on the same database; each copy is dropped with its clone_drop block.
func templateRow(ctx context.Context, t *progressTable, admin *sql.DB, s dialects.Server, bin string, port int, size int64, reps int) {
	block := func(name string) string {
		q, err := queries.Get("postgres", name, s.VersionNum)
		if err != nil {
			fatal("copy rows: " + err.Error())
		}
		return q
	}
	quoter, err := dialects.QuoterOf("postgres")
	if err != nil {
		fatal("copy rows: " + err.Error())
	}
	create, drop := block("clone_create"), block("clone_drop")
	ident := quoter.QuoteIdent
	const copyName, peerName = "writeamp_ck_bench_a1", "writeamp_bench_copy_peer"
	dropCopy := func(name string) { mustExec(admin, strings.ReplaceAll(drop, "{{clone}}", ident(name))) }
	wa := func() time.Duration {
		q := strings.NewReplacer("{{clone}}", ident(copyName), "{{template}}", ident(copyDB)).Replace(create)
		t0 := time.Now()
		if _, err := admin.ExecContext(ctx, q); err != nil {
			fatal("copy rows: " + q + ": " + err.Error())
		}
		d := time.Since(t0)
		dropCopy(copyName)
		return d
	}
	peer := func() time.Duration {
		t0 := time.Now()
		runEnv(clientEnv(), filepath.Join(bin, "createdb"), "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-T", copyDB, peerName)
		d := time.Since(t0)
		dropCopy(peerName)
		return d
	}
	// Each side starts from a clean checkpoint: the one FILE_COPY takes
	// itself is its own cost, the previous side's dirty buffers are not.
	was, peers, r := pairs(reps, wa, peer, func() { mustExec(admin, `CHECKPOINT`) })
	strategy := "a file copy, 13-14's only strategy"
	if strings.Contains(create, "FILE_COPY") {
		strategy = "STRATEGY FILE_COPY"
	}
	t.AppendSpreadRow(table.Row{fmt.Sprintf("check's copy on the database's own server: CREATE DATABASE … TEMPLATE (%s, the Cloner's clone_create) of a %s database vs createdb -T by hand (the server's default strategy), median of %d alternating pairs",
		strategy, humanize.IBytes(uint64(size)), len(r)),
		fmt.Sprintf("%.2f s", median(was)), fmt.Sprintf("createdb -T %.2f s", median(peers)), fmt.Sprintf("%.3f", median(r)), "<= 1.2"}, r)
}

// scratchRow times scratch.StartPostgres, the call check makes when the
// database cannot be copied on its server (start a throwaway server, then
// pg_dump -Fc | pg_restore into it), against the same by hand: a server
// started the same way (pgembed.StartLoopback), createdb, and
// pg_dump -Fc -Z0 | pg_restore --no-owner --no-privileges (check's flags:
// a compressing peer would time zlib, not check's overhead over the load).
func scratchRow(ctx context.Context, t *progressTable, admin *sql.DB, bin string, major, port int, size int64, reps int) {
	source := loopbackDSN(port, copyDB)
	var disk int64
	wa := func() time.Duration {
		t0 := time.Now()
		p, err := scratch.StartPostgres(ctx, scratch.PostgresOptions{Bin: bin, Major: major, SourceDSN: source, SourceEnv: os.Environ(), Database: copyDB, User: "postgres"})
		d := time.Since(t0)
		if err != nil {
			fatal("copy rows: scratch server: " + err.Error())
		}
		disk = p.Disk()
		fmt.Fprintf(os.Stderr, "bench: scratch server started and loaded in %.2f s (its own count)\n", p.Loaded().Seconds())
		if err := p.Stop(); err != nil {
			fatal("copy rows: stop the scratch server: " + err.Error())
		}
		return d
	}
	peer := func() time.Duration {
		t0 := time.Now()
		s, err := pgembed.StartLoopback(ctx, bin, nil)
		if err != nil {
			fatal("copy rows: the peer's server: " + err.Error())
		}
		defer func() {
			if err := s.Stop(); err != nil {
				fatal("copy rows: stop the peer's server: " + err.Error())
			}
		}()
		runEnv(clientEnv(), filepath.Join(bin, "createdb"), "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres", copyDB)
		env := append(clientEnv(), "SRC="+source, "DST="+loopbackDSN(s.Port, copyDB), "BIN="+bin)
		runEnv(env, "bash", "-c", `set -o pipefail; "$BIN/pg_dump" -Fc -Z0 -d "$SRC" | "$BIN/pg_restore" --no-owner --no-privileges --exit-on-error -d "$DST"`)
		return time.Since(t0)
	}
	// Both sides read the source as a stream: a checkpoint first on the
	// source so neither pays for the other's leftovers there.
	was, peers, r := pairs(reps, wa, peer, func() { mustExec(admin, `CHECKPOINT`) })
	t.AppendSpreadRow(table.Row{fmt.Sprintf("check's copy on a scratch server (internal/scratch: start a throwaway PostgreSQL %d, pg_dump -Fc -Z0 | pg_restore into it) of a %s database, %s on disk, vs the same by hand (a server started alike, createdb, pg_dump -Fc -Z0 | pg_restore --no-owner --no-privileges), median of %d alternating pairs",
		major, humanize.IBytes(uint64(size)), humanize.IBytes(uint64(disk)), len(r)),
		fmt.Sprintf("%.1f s", median(was)), fmt.Sprintf("by hand %.1f s", median(peers)), fmt.Sprintf("%.3f", median(r)), "<= 1.2"}, r)
}

// clientEnv is this process's environment without the libpq variables,
// which name the shared server, not the bench's own.
func clientEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

func runEnv(env []string, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		fatal(fmt.Sprintf("%s %v: %v\n%s", name, args, err, out))
	}
}
