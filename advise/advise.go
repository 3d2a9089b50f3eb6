package advise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/result"
)

// Advisor runs an advice.
type Advisor struct {
	// Base is the check every measurement is: its workload (Command, or
	// the built-in Workload and Variant), Repeat and CopyMaxSize; advise
	// sets Migrations and ReportOnly.
	Base check.Request
	// Measure connects, wires the gate (copies, scratch server) and runs
	// it: one `writeamp check --report-only` of req.
	Measure func(ctx context.Context, req check.Request) (*check.Outcome, error)
	// Original reads idx_scan and constraint backing on the user's
	// database, read only (nil: not read, as for the built-in workload).
	Original func(ctx context.Context) (map[string]Original, error)
	// Updates are the UPDATEs of a wrapped command that check's static
	// reading found (the built-in workload's come from its run).
	Updates       []Update
	OtherVariants []string
	MaxCandidates int
	// Budget stops measuring candidates once spent (0: no limit).
	Budget time.Duration
	Log    io.Writer
}

// Metric is one measured figure, before and after the change.
type Metric struct {
	Before    *float64         `json:"before"`
	After     *float64         `json:"after"`
	Exactness result.Exactness `json:"exactness"`
	Source    string           `json:"source"`
	Unit      string           `json:"unit,omitempty"`
}

// Migration is a candidate's up and down SQL.
type Migration struct {
	Up   string `json:"up"`
	Down string `json:"down"`
}

// Recommendation is a measured candidate.
type Recommendation struct {
	Rank   int    `json:"rank,omitempty"`
	Object string `json:"object"`
	Table  string `json:"table"`
	Kind   Kind   `json:"kind"`
	Change string `json:"change"`
	// Summary is the finding in one sentence.
	Summary   string            `json:"summary"`
	Why       []string          `json:"why"`
	Migration Migration         `json:"migration"`
	Measured  map[string]Metric `json:"measured,omitempty"`
	// Saving is the share of log bytes per operation the change saved
	// (negative: it cost more).
	Saving *float64 `json:"log_bytes_saving,omitempty"`
	// BeyondNoise says the saving is larger than the diagnose window's
	// own before/after difference with no change at all.
	BeyondNoise bool     `json:"beyond_noise"`
	Risks       []string `json:"risks"`
	Notes       []string `json:"notes,omitempty"`
	Files       []string `json:"files,omitempty"`
	// Error is why the candidate could not be applied or measured.
	Error string `json:"error,omitempty"`
	// Seconds is what measuring it took.
	Seconds float64 `json:"seconds"`
}

// Report is an advice: advise's own JSON document.
type Report struct {
	Tool      string `json:"tool"`
	Server    string `json:"server"`
	Workload  string `json:"workload"`
	PerOp     string `json:"per_operation"`
	Diagnosis struct {
		Tables  []TableProfile `json:"tables"`
		Indexes []IndexProfile `json:"indexes"`
		// Noise is the relative difference of log bytes per operation
		// between the two sides of the diagnose check (no change applied).
		Noise   *float64 `json:"log_bytes_noise,omitempty"`
		Seconds float64  `json:"seconds"`
	} `json:"diagnosis"`
	Recommendations []Recommendation `json:"recommendations"`
	// Skipped are candidates that failed to apply or were not measured.
	Skipped []Recommendation `json:"skipped,omitempty"`
	Notes   []string         `json:"notes,omitempty"`
}

// TableProfile is a table's write profile in the diagnose window.
type TableProfile struct {
	Table          string   `json:"table"`
	RowsUpdated    float64  `json:"rows_updated"`
	HotRatio       *float64 `json:"hot_ratio"`
	NewpageUpdates float64  `json:"newpage_updates"`
	LogBytesPerOp  float64  `json:"log_bytes_per_op"`
	PagesTouched   float64  `json:"pages_touched"`
}

// IndexProfile is an index's in the diagnose window, and why it gets entries.
type IndexProfile struct {
	Index string `json:"index"`
	Table string `json:"table"`
	// EntriesPerOp and Scans are null where the server does not count
	// them per index (InnoDB without performance_schema or userstat).
	EntriesPerOp  *float64 `json:"entries_per_op"`
	Scans         *float64 `json:"scans"`
	OriginalScans *int64   `json:"original_scans,omitempty"`
	Constraint    string   `json:"constraint,omitempty"`
	Unique        bool     `json:"unique,omitempty"`
	Why           []string `json:"why,omitempty"`
}

// noop is the diagnose check's migration: it changes nothing, so the
// check's two sides are the workload twice and their difference the noise.
const noop = "-- writeamp advise: the diagnose window (no change)\nSELECT 1;\n"

// Run diagnoses, proposes and measures; dir holds the migration files.
func (a *Advisor) Run(ctx context.Context, dir string) (*Report, error) {
	rep := &Report{Tool: "writeamp advise"}
	start := time.Now()
	a.logf("advise: diagnosing the workload (one check with no change: its two sides are the window and the noise)")
	diag, err := a.measure(ctx, dir, "00_diagnose", noop)
	if err != nil {
		return nil, fmt.Errorf("the diagnose window: %w", err)
	}
	rep.Diagnosis.Seconds = time.Since(start).Seconds()
	res := diag.Result
	before, again := &res.Runs[0], &res.Runs[1]
	rep.Server = res.Server.Name
	rep.Workload = res.Workload.Name
	if v := res.Workload.Params["variant"]; v != nil {
		rep.Workload += fmt.Sprintf(" (%v)", v)
	}
	rep.PerOp = diag.PerOp
	if b, ok := perOp(before, logBytes(before)); ok {
		if c, ok := perOp(again, logBytes(again)); ok && b > 0 {
			n := math.Abs(c-b) / b
			rep.Diagnosis.Noise = &n
		}
	}
	var orig map[string]Original
	builtin := a.Base.Command == nil
	if a.Original != nil && !builtin {
		if orig, err = a.Original(ctx); err != nil {
			rep.Notes = append(rep.Notes, "idx_scan and constraints of the database itself not read: "+err.Error())
			orig = nil
		}
	}
	d := Diagnosis{Dialect: diag.Dialect, Builtin: builtin, Run: before, Indexes: IndexesOf(before, orig), Updates: a.Updates, OtherVariants: a.OtherVariants}
	if builtin {
		d.Updates = nil
		for _, w := range before.Writes {
			if w.Kind == "update" {
				d.Updates = append(d.Updates, Update{Table: w.Table, Columns: w.Columns, Source: "statement " + w.Statement})
			}
		}
	}
	profile(rep, d)
	cands, err := Propose(d, a.MaxCandidates)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		rep.Notes = append(rep.Notes, noCandidate(d))
	}
	for i, c := range cands {
		r := Recommendation{Object: c.Object, Table: c.Table, Kind: c.Kind, Change: c.Change, Why: c.Why, Migration: Migration{Up: c.Up, Down: c.Down}, Notes: c.Notes}
		if a.Budget > 0 && time.Since(start) > a.Budget {
			r.Error = fmt.Sprintf("not measured: the time budget (%s) was spent", a.Budget)
			rep.Skipped = append(rep.Skipped, r)
			continue
		}
		a.logf("advise: candidate %d/%d: %s (%s)", i+1, len(cands), c.Change, c.Kind)
		t0 := time.Now()
		out, err := a.measure(ctx, dir, fmt.Sprintf("%02d_%s", i+1, fileName(c)), c.Up)
		r.Seconds = time.Since(t0).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.Error = err.Error()
			a.logf("advise: candidate %d skipped: %v", i+1, err)
			rep.Skipped = append(rep.Skipped, r)
			continue
		}
		fill(&r, &c, out, rep.Diagnosis.Noise)
		rep.Recommendations = append(rep.Recommendations, r)
	}
	Rank(rep.Recommendations)
	return rep, nil
}

func (a *Advisor) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprintf(a.Log, format+"\n", args...)
	}
}

// measure runs one report-only check of the migration text.
func (a *Advisor) measure(ctx context.Context, dir, name, up string) (*check.Outcome, error) {
	path := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(path, []byte(up), 0o600); err != nil {
		return nil, err
	}
	req := a.Base
	req.Migrations, req.Budgets, req.ReportOnly = []string{path}, nil, true
	out, err := a.Measure(ctx, req)
	if err == nil && (out == nil || out.Result == nil || len(out.Result.Runs) < 2) {
		err = errors.New("the check measured nothing")
	}
	if err != nil {
		return nil, err
	}
	if !out.Restore.OK() {
		return out, fmt.Errorf("the database was not left as it was: %s", out.Restore.Sentence())
	}
	return out, nil
}

func fileName(c Candidate) string {
	n := string(c.Kind) + "_" + c.Object
	if c.Kind == Fillfactor {
		n = strings.ReplaceAll(c.Change, " ", "_")
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, n)
}

// Rank orders recommendations by measured saving, largest first.
func Rank(rs []Recommendation) {
	sort.SliceStable(rs, func(i, j int) bool {
		si, sj := math.Inf(-1), math.Inf(-1)
		if rs[i].Saving != nil {
			si = *rs[i].Saving
		}
		if rs[j].Saving != nil {
			sj = *rs[j].Saving
		}
		return si > sj
	})
	for i := range rs {
		rs[i].Rank = i + 1
	}
}

// logBytes is the run's WAL/redo: of the workload's objects where the
// server splits it so (another session's writes are not the change's),
// else the whole database's.
func logBytes(r *result.Run) result.Metric {
	if m := r.Database["log_bytes_in_scope"]; m.OK() {
		return m
	}
	return r.Database["log_bytes"]
}

// logName says which log figure logBytes took.
func logName(r *result.Run) string {
	if r.Database["log_bytes_in_scope"].OK() {
		return "WAL/redo bytes of the workload's objects (log_bytes_in_scope)"
	}
	return "WAL/redo bytes of the database (log_bytes)"
}

// perOp divides by the run's main operation count.
func perOp(r *result.Run, m result.Metric) (float64, bool) {
	_, n := r.Main()
	if !m.OK() || n == 0 {
		return 0, false
	}
	return m.V() / float64(n), true
}

func ptr(v float64) *float64 { return &v }

// pair is a metric measured on both sides.
func pair(b, a result.Metric, okB, okA bool, vb, va float64, source, unit string) Metric {
	m := Metric{Exactness: result.Weaker(b.Exactness, a.Exactness), Source: source, Unit: unit}
	if okB {
		m.Before = ptr(vb)
	}
	if okA {
		m.After = ptr(va)
	}
	if !okB || !okA {
		m.Exactness = result.Unavailable
	}
	return m
}

// tableSum sums a metric over the table and its indexes.
func tableSum(r *result.Run, table, name string, withTable bool) (result.Metric, bool) {
	sum, e, any := 0.0, result.Exact, false
	if withTable {
		if t := r.Table(table); t != nil {
			if m := t.Metrics[name]; m.OK() {
				sum, e, any = sum+m.V(), result.Weaker(e, m.Exactness), true
			}
		}
	}
	for _, ix := range r.Indexes {
		if strings.EqualFold(ix.Table, table) {
			if m := ix.Metrics[name]; m.OK() {
				sum, e, any = sum+m.V(), result.Weaker(e, m.Exactness), true
			}
		}
	}
	return result.New(sum, e, ""), any
}

// fill puts a measured check's figures into r.
func fill(r *Recommendation, c *Candidate, out *check.Outcome, noise *float64) {
	b, a := &out.Result.Runs[0], &out.Result.Runs[1]
	op := out.PerOp
	r.Measured = map[string]Metric{}
	lb, la := logBytes(b), logBytes(a)
	vb, okB := perOp(b, lb)
	va, okA := perOp(a, la)
	r.Measured["log_bytes/op"] = pair(lb, la, okB, okA, vb, va, logName(b)+" per "+op+": the same workload before and after, on copies", "bytes")
	r.Measured["log_bytes/op"] = derived(r.Measured["log_bytes/op"])
	if okB && okA && vb > 0 {
		r.Saving = ptr((vb - va) / vb)
		r.BeyondNoise = noise == nil || math.Abs(*r.Saving) > *noise
		if !r.BeyondNoise {
			r.Notes = append(r.Notes, fmt.Sprintf("the change (%.1f%%) is within the noise: the workload measured twice with no change differed by %.1f%%", 100**r.Saving, 100**noise))
		}
	}
	if cb, ca := b.Database["checkpoints"].V(), a.Database["checkpoints"].V(); cb+ca > 0 {
		// The first change of each page after a checkpoint logs the whole
		// page: a side with one more checkpoint logs more for that alone.
		r.BeyondNoise = false
		r.Notes = append(r.Notes, fmt.Sprintf("a checkpoint fell inside a measured window (%.0f before, %.0f after): full-page images weigh on log bytes there; --repeat 3 compares medians", cb, ca))
	}
	tb, ta := b.Table(c.Table), a.Table(c.Table)
	if tb != nil && ta != nil {
		hb, ha := tb.Metrics["hot_ratio"], ta.Metrics["hot_ratio"]
		r.Measured["hot_ratio"] = pair(hb, ha, hb.OK(), ha.OK(), hb.V(), ha.V(), "HOT updates / updates of "+c.Table+" ("+hb.Source+")", "fraction")
	}
	eb, okEB := tableSum(b, c.Table, result.LeafInserts.Name, false)
	ea, okEA := tableSum(a, c.Table, result.LeafInserts.Name, false)
	vEB, okEB2 := perOp(b, eb)
	vEA, okEA2 := perOp(a, ea)
	r.Measured["index_entries/op"] = derived(pair(eb, ea, okEB && okEB2, okEA && okEA2, vEB, vEA, "index leaf inserts on "+c.Table+"'s indexes per "+op, "entries"))
	pb, okPB := tableSum(b, c.Table, "pages_touched", true)
	pa, okPA := tableSum(a, c.Table, "pages_touched", true)
	vPB, okPB2 := perOp(b, pb)
	vPA, okPA2 := perOp(a, pa)
	r.Measured["pages_touched/op"] = derived(pair(pb, pa, okPB && okPB2, okPA && okPA2, vPB, vPA, "pages of "+c.Table+" and its indexes the window wrote per "+op, "pages"))
	tlb, okTB := tableSum(b, c.Table, "log_bytes", true)
	tla, okTA := tableSum(a, c.Table, "log_bytes", true)
	vTB, okTB2 := perOp(b, tlb)
	vTA, okTA2 := perOp(a, tla)
	r.Measured["log_bytes_table/op"] = derived(pair(tlb, tla, okTB && okTB2, okTA && okTA2, vTB, vTA, "WAL/redo bytes of "+c.Table+" and its indexes per "+op, "bytes"))
	if b.Throughput > 0 && a.Throughput > 0 {
		r.Measured["operations/s"] = Metric{Before: ptr(b.Throughput), After: ptr(a.Throughput), Exactness: result.Approx, Source: "the workload's throughput (its reads included): a read that lost its index shows here", Unit: "per second"}
	}
	for k, m := range r.Measured {
		if m.Before == nil && m.After == nil && k != "log_bytes/op" {
			delete(r.Measured, k) // the server counts nothing of it (InnoDB: no HOT)
		}
	}
	r.Risks = risks(c, b, a)
	log := "WAL"
	if out.Dialect != "postgres" {
		log = "redo"
	}
	r.Summary = summary(r, op, log)
}

func derived(m Metric) Metric {
	if m.Exactness != result.Unavailable {
		m.Exactness = result.Weaker(result.Derived, m.Exactness)
	}
	return m
}

// risks are the read side of a change and the constraints it touches.
func risks(c *Candidate, b, a *result.Run) []string {
	var out []string
	if ix := c.Index; ix != nil {
		if !ix.ScansRead {
			out = append(out, "the server counted no index reads in the diagnose window (MariaDB/MySQL: performance_schema off): the workload's reads of "+ix.Name+" are not known")
		} else if ix.Scans > 0 {
			out = append(out, fmt.Sprintf("the workload read %s: %.0f index scans in the diagnose window; after the drop those reads use another index or a scan (see operations/s)", ix.Name, ix.Scans))
		} else {
			out = append(out, "the workload did not read "+ix.Name+" in the diagnose window")
		}
		switch {
		case ix.OriginalScans > 0:
			out = append(out, fmt.Sprintf("%d index scans of %s on the database itself since its statistics reset: other readers than this workload use it", ix.OriginalScans, ix.Name))
		case ix.OriginalScans == 0:
			out = append(out, "no index scan of "+ix.Name+" on the database itself since its statistics reset (a reset, a replica or a monthly job may hide readers)")
		}
		if ix.Unique || ix.Constraint != "" {
			out = append(out, "backs constraint "+ix.Constraint+": dropping it drops the constraint")
		} else {
			out = append(out, "backs no constraint")
		}
		out = append(out, "plans: not checked: the statements' EXPLAIN before and after is not compared; the measured throughput stands for the workload's own reads")
	}
	if c.Kind == Fillfactor {
		out = append(out, "a lower fillfactor makes the table larger (sequential scans read more pages); VACUUM FULL rewrites the table under an ACCESS EXCLUSIVE lock")
	}
	return out
}

// summary is the finding: what the change saved, and HOT before → after.
func summary(r *Recommendation, op, log string) string {
	s := r.Change
	if r.Saving == nil {
		return s + ": log bytes not measured"
	}
	if *r.Saving >= 0 {
		s += fmt.Sprintf(" saves %.1f%% %s per %s", 100**r.Saving, log, op)
	} else {
		s += fmt.Sprintf(" costs %.1f%% more %s per %s", -100**r.Saving, log, op)
	}
	if h, ok := r.Measured["hot_ratio"]; ok && h.Before != nil && h.After != nil && math.Abs(*h.After-*h.Before) >= 0.005 {
		s += fmt.Sprintf(", HOT %.0f%% → %.0f%% on %s", 100**h.Before, 100**h.After, r.Table)
	}
	if e, ok := r.Measured["index_entries/op"]; ok && e.Before != nil && e.After != nil {
		s += fmt.Sprintf(", index entries %.2f → %.2f per %s", *e.Before, *e.After, op)
	}
	if !r.BeyondNoise {
		s += " (not beyond the noise: see the notes)"
	}
	return s
}

// profile fills the diagnosis: per table and index, and why each index got entries.
func profile(rep *Report, d Diagnosis) {
	r := d.Run
	_, ops := r.Main()
	div := func(v float64) float64 {
		if ops == 0 {
			return 0
		}
		return v / float64(ops)
	}
	for _, t := range r.Tables {
		p := TableProfile{Table: t.Name, RowsUpdated: t.Metrics["rows_updated"].V(), NewpageUpdates: t.Metrics["newpage_updates"].V(),
			LogBytesPerOp: div(t.Metrics["log_bytes"].V()), PagesTouched: t.Metrics["pages_touched"].V()}
		if h := t.Metrics["hot_ratio"]; h.OK() {
			p.HotRatio = ptr(h.V())
		}
		rep.Diagnosis.Tables = append(rep.Diagnosis.Tables, p)
	}
	for _, ix := range d.Indexes {
		p := IndexProfile{Index: ix.Name, Table: ix.Table, Constraint: ix.Constraint, Unique: ix.Unique}
		if ix.EntriesRead {
			p.EntriesPerOp = ptr(div(ix.Entries))
		}
		if ix.ScansRead {
			p.Scans = ptr(ix.Scans)
		}
		if ix.OriginalScans >= 0 {
			p.OriginalScans = &ix.OriginalScans
		}
		for _, u := range d.Updates {
			if !strings.EqualFold(u.Table, ix.Table) {
				continue
			}
			for _, c := range u.Columns {
				if containsFold(ix.Columns, c) {
					p.Why = append(p.Why, fmt.Sprintf("the UPDATE of %s sets its key column %s (%s)", u.Table, strings.ToLower(c), u.Source))
				}
			}
		}
		if t := r.Table(ix.Table); t != nil && t.Metrics["non_hot_updates"].V() > 0 && ix.Entries > 0 {
			p.Why = append(p.Why, fmt.Sprintf("%.0f non-HOT updates of %s: each writes an entry in every index of the table", t.Metrics["non_hot_updates"].V(), ix.Table))
		}
		if t := r.Table(ix.Table); t != nil && t.Metrics["rows_inserted"].V() > 0 && ix.Entries > 0 {
			p.Why = append(p.Why, fmt.Sprintf("%.0f rows inserted into %s", t.Metrics["rows_inserted"].V(), ix.Table))
		}
		rep.Diagnosis.Indexes = append(rep.Diagnosis.Indexes, p)
	}
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// noCandidate says why nothing was proposed, naming what the server could
// not tell: an index whose reads or writes it does not count is never
// proposed as unused, and an UPDATE writeamp cannot read (a client that
// builds its statements itself) sets no column it knows of.
func noCandidate(d Diagnosis) string {
	var blind []string
	for _, ix := range d.Indexes {
		if !ix.ScansRead && ix.OriginalScans < 0 {
			blind = append(blind, ix.Table+"."+ix.Name)
		}
	}
	why := "no candidate: every index was read by the workload or backs a constraint, none duplicates another or holds a column the workload updates, and no update moved a row to another page"
	if len(blind) > 0 {
		why = fmt.Sprintf("no candidate: the server counts no index reads (MariaDB/MySQL: performance_schema off), so %s cannot be called unused, and the command names no SQL file or statement writeamp can read to tell which columns its UPDATEs set (a client that builds its statements itself, such as sysbench); turn performance_schema on (performance_schema = ON in the server's configuration, then a restart), or wrap the workload's SQL in a file the command runs, and advise again", strings.Join(blind, ", "))
	}
	return why
}
