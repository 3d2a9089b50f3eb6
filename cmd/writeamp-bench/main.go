package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jedib0t/go-pretty/v6/table"

	_ "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

var (
	dsn     = flag.String("dsn", os.Getenv("WRITEAMP_TEST_PG_DSN"), "PostgreSQL to benchmark on (a superuser: creates and drops its own database objects)")
	binary  = flag.String("writeamp", "bin/writeamp", "the writeamp binary for the end-to-end rows")
	updates = flag.Int("updates", 20000, "single-row UPDATEs per driver-vs-pgbench level")
	indexes = flag.Int("indexes", 10000, "indexes for the snapshot-cost row")
	walRows = flag.Int("wal-rows", 200000, "rows inserted for the WAL read-rate rows")
	quick   = flag.Bool("quick", false, "smaller sizes (for a smoke run)")
	only    = flag.String("only", "", "run only one group of rows: updates (driver vs pgbench), wal (WAL read rates), snapshot, sampler (the interval and wait samplers' cost), xacts (the per-operation transaction-id read), ab (the A/B run vs pgbench on its statement mix), memory (run's peak RSS at 10x the logins), diff (writeamp diff vs jq at 1k/10k/50k indexes), copy (check's copies vs createdb -T and pg_dump | pg_restore by hand), advise (writeamp advise vs the same checks by hand)")
	// The copy rows' database lives on a throwaway server of the bench's
	// own, generated for the run: about this size, plus one copy at a time.
	copySize = flag.String("copy-size", "1GiB", "size of the database the copy rows copy (e.g. 200MiB); it and one copy at a time need that much free disk in the temporary directory")
	copyReps = flag.Int("copy-reps", 5, "alternating pairs per copy row")
	write    = flag.String("write", "docs/performance.md", "rewrite each measured group's block of this file ('': print only); a group that failed keeps its block")
)

func main() {
	flag.Parse()
	if *dsn == "" {
		fatal("no -dsn and no WRITEAMP_TEST_PG_DSN")
	}
	if *quick {
		*updates, *indexes, *walRows = 2000, 1000, 20000
	}
	ctx := context.Background()
	db, err := pg.Dialect{}.Open(ctx, *dsn)
	if err != nil {
		fatal(err.Error())
	}
	defer db.Close()
	srv, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		fatal(err.Error())
	}
	cores := numCPU()
	fmt.Printf("writeamp bench on %s (%d cores)\n\n", srv, cores)

	t := &progressTable{Writer: table.NewWriter()}
	t.SetOutputMirror(os.Stdout)
	t.SetStyle(table.StyleLight)
	t.AppendHeader(table.Row{"what", "writeamp", "peer", "ratio", "target", "met"})
	e := env{ctx: ctx, t: t, db: db, srv: srv}
	if *only != "" && !slices.Contains(groupNames(), *only) {
		fatal("-only: unknown group " + *only + " (known: " + strings.Join(groupNames(), ", ") + ")")
	}
	// A file whose markers are broken is refused before the minutes of
	// measuring, not after.
	if *write != "" {
		if _, err := readDoc(*write); err != nil {
			fatal(err.Error() + " (fix its markers, or -write '' to print only)")
		}
	}
	br := &benchRun{server: srv.String(), cores: cores, command: commandLine(), t: t}
	current = br
	// Each group can run alone (-only): a full bench takes most of an hour.
	for _, g := range groups {
		if *only == "" || *only == g.name {
			br.begin(g)
			g.rows(e)
			br.end()
		}
	}
	t.Render()
	fmt.Println("\nratio = writeamp / peer, both measured in this run on the same server (the pairs' spread beside it where the row has pairs); met = the ratio, as printed (3 decimals: 2 had rounded 1.2028 to a met 1.20), within the target.")
	failed := br.write()
	t.exit(failed)
}

// env is what a group's rows are measured with.
type env struct {
	ctx context.Context
	t   *progressTable
	db  *sql.DB
	srv dialects.Server
}

// group is one -only group of rows; flags are the flags that size its rows,
// named beside its figures in docs/performance.md.
type group struct {
	name  string
	flags []string
	rows  func(env)
}

// groups run in this order, and their blocks stand in this order in
// docs/performance.md. Set in init: the rows reach fatal, which writes
// the file in the groups' order.
var groups []group

func init() {
	groups = []group{
		{"updates", []string{"updates"}, func(e env) { updateRows(e.ctx, e.t, e.db, e.srv) }},
		{"wal", []string{"wal-rows", "wal-reps"}, func(e env) { walRateRows(e.ctx, e.t, e.db, e.srv) }},
		{"snapshot", []string{"indexes"}, func(e env) { snapshotRow(e.ctx, e.t, e.db, e.srv) }},
		{"sampler", nil, func(e env) { samplerRows(e.ctx, e.t, e.db, e.srv) }},
		{"xacts", nil, func(e env) { xactRows(e.ctx, e.t, e.db, e.srv) }},
		{"ab", nil, func(e env) { abRows(e.ctx, e.t, e.db, e.srv) }},
		{"memory", nil, func(e env) { memoryRow(e.ctx, e.t, e.db, e.srv) }},
		{"diff", nil, func(e env) { diffRows(e.t, e.db) }},
		{"copy", []string{"copy-size", "copy-reps"}, func(e env) { copyRows(e.ctx, e.t, e.srv) }},
		{"advise", []string{"advise-reps"}, func(e env) { adviseRows(e.ctx, e.t, e.srv) }},
	}
}

func groupNames() []string {
	var names []string
	for _, g := range groups {
		names = append(names, g.name)
	}
	return names
}

// progressTable prints each row as it is measured (a bench takes minutes),
// then the whole table, and keeps the current group's rows for
// docs/performance.md.
// Each row's ratio is held to its target ("<= x" or ">= x"): a miss is
// marked and makes the bench exit 1.
type progressTable struct {
	table.Writer
	missed, undecided []string
	rows              []benchRow
}

// AppendNoisyRow is a row whose ratio is the median of pairs that spread
// from lo to hi: a median short of the target is a miss only when every
// pair is short of it too; when the pairs straddle the target the machine's
// noise is larger than the effect and the row says so (undecided, not a
// miss, and listed at the end).
func (p *progressTable) AppendNoisyRow(r table.Row, lo, hi float64) {
	if met(fmt.Sprint(r[3]), fmt.Sprint(r[4])) == "yes" {
		p.add(r, spread(lo, hi), "")
		return
	}
	edge := hi
	if strings.HasPrefix(fmt.Sprint(r[4]), "<=") {
		edge = lo
	}
	if met(fmt.Sprintf("%.4f", edge), fmt.Sprint(r[4])) != "yes" {
		p.add(r, spread(lo, hi), "")
		return
	}
	p.undecided = append(p.undecided, fmt.Sprint(r[0]))
	p.add(r, spread(lo, hi), "undecided: the pairs straddle the target")
}

// AppendRow is a row of one measurement (or one pair).
func (p *progressTable) AppendRow(r table.Row) { p.add(r, "", "") }

// AppendSpreadRow is a row whose ratio is the median of the pairs' ratios
// (sorted); one pair has no spread.
func (p *progressTable) AppendSpreadRow(r table.Row, ratios []float64) {
	if len(ratios) < 2 {
		p.add(r, "", "")
		return
	}
	p.add(r, spread(ratios[0], ratios[len(ratios)-1]), "")
}

func spread(lo, hi float64) string { return fmt.Sprintf("pairs %.3f–%.3f", lo, hi) }

// add prints and keeps r (what, writeamp, peer, ratio, target) with its
// verdict: met, NO, or the given one (undecided).
func (p *progressTable) add(r table.Row, spread, verdict string) {
	b := benchRow{What: fmt.Sprint(r[0]), Writeamp: fmt.Sprint(r[1]), Peer: fmt.Sprint(r[2]), Ratio: fmt.Sprint(r[3]), Spread: spread, Target: fmt.Sprint(r[4])}
	m := met(b.Ratio, b.Target)
	switch {
	case verdict != "":
		b.Verdict = verdict
	case m == "yes":
		b.Verdict = "met"
	default:
		b.Verdict = "missed" + strings.TrimPrefix(m, "NO")
		p.missed = append(p.missed, b.What)
	}
	ratio := b.Ratio
	if spread != "" {
		ratio += " (" + spread + ")"
	}
	row := table.Row{b.What, b.Writeamp, b.Peer, ratio, b.Target, m}
	if verdict != "" {
		row = append(row, verdict)
	}
	fmt.Fprintln(os.Stderr, row...)
	p.Writer.AppendRow(row)
	p.rows = append(p.rows, b)
}

// exit ends the bench: status 1 when a row missed its target or a group
// failed.
func (p *progressTable) exit(failed []string) {
	if len(p.undecided) > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d rows undecided (their pairs straddle the target; the machine's noise is larger than the effect):\n  %s\n", len(p.undecided), strings.Join(p.undecided, "\n  "))
	}
	if len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d groups failed: %s\n", len(failed), strings.Join(failed, ", "))
	}
	if len(p.missed) > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d rows missed their target:\n  %s\n", len(p.missed), strings.Join(p.missed, "\n  "))
	}
	if len(p.missed) > 0 || len(failed) > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

// met compares a row's ratio with its target.
func met(ratio, target string) string {
	v, err := strconv.ParseFloat(ratio, 64)
	f := strings.Fields(target)
	if err != nil || len(f) < 2 {
		return "NO (unreadable: " + ratio + " " + target + ")"
	}
	want, err := strconv.ParseFloat(f[1], 64)
	switch {
	case err != nil:
		return "NO (unreadable target " + target + ")"
	case f[0] == "<=" && v <= want, f[0] == ">=" && v >= want:
		return "yes"
	}
	return "NO"
}

// fatal ends the bench. During a group it is that group's failure: the
// groups measured before it are written (run.fail), its block keeps its
// last figures.
func fatal(msg string) {
	fmt.Fprintln(os.Stderr, "bench: "+msg)
	fatalOnce.Do(func() {
		if current != nil {
			current.fail(msg)
		}
		os.Exit(1)
	})
	os.Exit(1)
}

var (
	fatalOnce sync.Once
	current   *benchRun
)

func numCPU() int { n, _ := strconv.Atoi(strings.TrimSpace(run("nproc"))); return n }

func run(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		fatal(fmt.Sprintf("%s %v: %v\n%s", name, args, err, out))
	}
	return string(out)
}

func mustExec(db *sql.DB, q string) {
	if _, err := db.Exec(q); err != nil {
		fatal(q + ": " + err.Error())
	}
}
