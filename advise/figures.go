package advise

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/result"
)

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
