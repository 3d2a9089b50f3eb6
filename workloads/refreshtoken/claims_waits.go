package refreshtoken

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// waitClaim is a dialect's contention claim and the waits that show it,
// named as the samplers and collectors write them (wait_share.<Class>.<Event>,
// session_waits.<event>_ms, waits.<event>), compared in slug form.
type waitClaim struct {
	claim, label string
	events       []string
	// threshold: the claim is that these waits stay small (PostgreSQL),
	// not that coarse relieves them.
	threshold bool
}

var waitClaims = map[string]waitClaim{
	"postgres": {claim: "PostgreSQL handles concurrent writes to the same page better (lighter-weight buffer locks)",
		label: "buffer-lock waits (LWLock BufferContent/BufferMapping, BufferPin)", threshold: true,
		events: []string{"buffercontent", "buffer_content", "buffermapping", "buffer_mapping", "bufferpin"}},
	"sqlserver": {claim: "SQL Server serialises concurrent inserts on a leaf page (PAGELATCH_EX), which SESSION_BUCKET relieves",
		label: "PAGELATCH_EX", events: []string{"pagelatch_ex"}},
	"oracle": {claim: "Oracle shows buffer busy waits and enq: TX - index contention on the hot index block, which the change relieves",
		label: "buffer busy waits + enq: TX - index contention", events: []string{"buffer_busy_waits", "enq_tx_index_contention"}},
	"mysql": {claim: "InnoDB: fewer index repositions relieve index latch and row-lock waits",
		label: "index latch + row-lock waits", events: []string{"row_lock", "index_tree_rw_lock", "buf_block_lock"}},
}

func slug(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// matches says whether a wait (Class.Event, an event, or a
// performance_schema instrument path) is one of the claim's.
func (w waitClaim) matches(name string) bool {
	cands := []string{name}
	if _, ev, ok := strings.Cut(name, "."); ok {
		cands = append(cands, ev)
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		cands = append(cands, name[i+1:])
	}
	for _, c := range cands {
		for _, e := range w.events {
			if slug(c) == e {
				return true
			}
		}
	}
	return false
}

type shareSet struct {
	shares  map[string]float64
	e       result.Exactness
	samples float64
}

func sharesOf(r *result.Run) shareSet {
	s := shareSet{shares: map[string]float64{}, e: result.Approx}
	for name, m := range r.Database {
		if w, ok := strings.CutPrefix(name, "wait_share."); ok && m.OK() {
			s.shares[w] = m.V()
			s.e = result.Weaker(s.e, m.Exactness)
		}
	}
	if m, ok := r.Database[result.WaitSamples.Name]; ok && m.OK() {
		s.samples = m.V()
	}
	return s
}

func (s shareSet) sum(w waitClaim) float64 {
	t := 0.0
	for k, v := range s.shares {
		if w.matches(k) {
			t += v
		}
	}
	return t
}

func (s shareSet) top(n int) string {
	keys := make([]string, 0, len(s.shares))
	for k := range s.shares {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if s.shares[keys[i]] != s.shares[keys[j]] {
			return s.shares[keys[i]] > s.shares[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*s.shares[k]))
	}
	return strings.Join(parts, ", ")
}

// contention compares the dialect's contention waits at the highest
// concurrency: sampled shares of active time (approx) where the result has
// them, else the workload sessions' or the server's wait counters.
func (x *claimCtx) contention(dialect string) (result.Claim, bool) {
	w, ok := waitClaims[dialect]
	if !ok {
		return result.Claim{}, false
	}
	p := x.high
	cl := x.base(p, claimSpec{id: "contention", topic: "contention", claim: w.claim, level: "database", metric: "wait_share"})
	rule := "held when coarse's share of sampled active time in " + w.label + " is below baseline's beyond noise (approx shares: beyond 5 pt) at the highest concurrency; else did not hold"
	if w.threshold {
		rule = fmt.Sprintf("held when %s stay below %.0f%% of sampled active time in both variants at the highest concurrency; else did not hold", w.label, 100*bufferLockShare)
	}
	if p.level <= 1 {
		return notMeasured(cl, "no concurrency above 1 in this comparison: one worker waits on no other (run --concurrency 1,8,32)", rule), true
	}
	sa, sb := sharesOf(x.c.Columns[p.a].Run), sharesOf(x.c.Columns[p.b].Run)
	if len(sa.shares) == 0 || len(sb.shares) == 0 {
		if !w.threshold {
			if cl, ok := x.waitCounters(p, cl, w); ok {
				return cl, true
			}
		}
		return notMeasured(cl, "no wait_share figures in this result: the window's wait sampler did not run", rule), true
	}
	if n := min(sa.samples, sb.samples); n < minWaitSamples {
		return notMeasured(cl, fmt.Sprintf("only %.0f wait samples in a run (%d needed for a share)", n, minWaitSamples), rule), true
	}
	va, vb := sa.sum(w), sb.sum(w)
	e := result.Weaker(sa.e, sb.e)
	cl.Rule = rule
	held := va < bufferLockShare && vb < bufferLockShare
	if !w.threshold {
		beyond, nr := reports.BeyondNoiseAs("ratio", va, vb, e, false, 0)
		held = beyond && vb < va
		cl.Rule = strings.Replace(rule, "(approx shares: beyond 5 pt)", "("+nr+")", 1)
	}
	cl.Metric = "wait_share"
	cl.Before, cl.After, cl.Exactness, cl.Unit = ptr(va), ptr(vb), e, "ratio"
	cl.Change, cl.ChangeUnit = ptr(100*(vb-va)), "points"
	cl.Measured = fmt.Sprintf("%s%s %.1f%% → %.1f%% of sampled active time (%+.1f pt; %.0f / %.0f samples); top waits: %s %s; %s %s",
		x.at(p), w.label, 100*va, 100*vb, 100*(vb-va), sa.samples, sb.samples, cl.From, sa.top(3), cl.To, sb.top(3))
	cl.Verdict = verdict(held)
	return cl, true
}

// waitCounters: without sampled shares, the claim's waits as counted
// (SQL Server and Oracle per workload session, InnoDB server-wide), per
// operation: wait time beyond the latency rule, counts beyond ±5%.
func (x *claimCtx) waitCounters(p *claimPair, cl result.Claim, w waitClaim) (result.Claim, bool) {
	for _, fam := range []struct{ prefix, suffix, kind string }{
		{result.SessionWaitsPrefix, "_ms", "timing"}, {result.WaitsPrefix, "_ms", "timing"}, {result.WaitsPrefix, "", "count"},
	} {
		totals := map[int]float64{}
		sum := func(col int) (float64, result.Exactness, bool) {
			t, e, found := 0.0, result.Exact, false
			defer func() { totals[col] = t }()
			for name, m := range x.c.Columns[col].Run.Database {
				ev, ok := strings.CutPrefix(name, fam.prefix)
				if !ok || !m.OK() || strings.HasSuffix(ev, "_ms") != (fam.suffix == "_ms") {
					continue
				}
				if w.matches(strings.TrimSuffix(ev, fam.suffix)) {
					t, e, found = t+m.V(), result.Weaker(e, m.Exactness), true
				}
			}
			if d := x.c.Denominators[col]; found && x.c.PerOp != "" && d > 0 {
				return t / d, e, found // the counter's exactness, as get keeps it
			}
			return t, e, found
		}
		va, ea, okA := sum(p.a)
		vb, eb, okB := sum(p.b)
		if !okA || !okB {
			continue
		}
		e := result.Weaker(ea, eb)
		beyond, nr := reports.BeyondNoiseAs(fam.kind, va, vb, e, false, 0)
		cl.Metric = fam.prefix + "*" + fam.suffix
		cl.Rule = "held when coarse's " + w.label + " (" + cl.Metric + ") are below baseline's beyond noise (" + nr + ") at the highest concurrency; else did not hold"
		unit := map[string]string{"timing": " ms", "count": ""}[fam.kind]
		cl.Before, cl.After, cl.Exactness, cl.Unit = ptr(va), ptr(vb), e, reports.UnitOf(x.c, "")
		ch := "="
		if va != 0 {
			cl.Change, cl.ChangeUnit = ptr(100*(vb-va)/va), "percent"
			ch = fmt.Sprintf("%+.1f%%", *cl.Change)
		} else if vb != 0 {
			ch = "new"
		}
		who := map[string]string{result.SessionWaitsPrefix: "the workload sessions' ", result.WaitsPrefix: "server-wide "}[fam.prefix]
		cl.Measured = fmt.Sprintf("%s%s%s %.4g%s → %.4g%s%s (%s)", x.at(p), who, w.label, va, unit, vb, unit, reports.PerUnit(x.c), ch)
		if x.c.PerOp != "" {
			// a per-operation figure of a few waits in the whole window hides how few
			cl.Measured += fmt.Sprintf("; %s%s → %s%s in the window", result.FormatCount(totals[p.a]), unit, result.FormatCount(totals[p.b]), unit)
		}
		cl.Verdict = verdict(beyond && vb < va)
		return cl, true
	}
	return cl, false
}

// pageWrites: "cheaper I/O — fewer page writes", where the dialect counts them.
func (x *claimCtx) pageWrites(dialect string) result.Claim {
	s := claimSpec{id: "page_writes", topic: "page_writes", claim: "cheaper I/O: fewer page writes"}
	switch dialect {
	case "postgres":
		return x.fullPageImages(x.low, s)
	case "oracle":
		s.claim += " (Oracle: physical writes of the expiration index)"
		s.level, s.object, s.metric = "index", expirationIndex, result.PhysicalWrites.Name
	default:
		return notMeasured(x.base(x.low, s), "writeamp reads no page-write counter on this dialect", "held when coarse's page writes are lower than baseline's beyond noise")
	}
	return x.fewer(x.low, s)
}

// changeBuffer: InnoDB defers changes to cold non-unique secondary-index
// pages. Held when the window merged or buffered any such change; the
// server's innodb_change_buffering says whether it can at all.
func (x *claimCtx) changeBuffer(p *claimPair) result.Claim {
	s := claimSpec{id: "change_buffer", topic: "change_buffer", level: "database", metric: result.IbufMerges.Name,
		claim: "InnoDB's change buffer defers non-unique secondary-index changes when pages are cold"}
	cl := x.base(p, s)
	rule := "held when either variant merged or buffered a change (ibuf merges or growth above 0); did not hold when neither did; not measured when the server buffers nothing"
	mode, known := "", false
	if wdw := x.c.Columns[p.a].Run.Window; wdw != nil {
		mode, known = wdw.Marks["innodb_change_buffering_after"]
	}
	switch {
	case known && mode == "":
		return notMeasured(cl, "this server has no InnoDB change buffer (MariaDB removed it in 11.0)", rule)
	case known && mode == "none":
		return notMeasured(cl, "innodb_change_buffering = none on this server (MariaDB's default since 10.5.15/10.6.7, MySQL's since 8.4): nothing is deferred", rule)
	}
	names := []string{result.IbufMergedInserts.Name, result.IbufMergedDeleteMarks.Name, result.IbufMergedDeletes.Name, result.IbufSizePages.Name}
	tot := func(col int) (float64, result.Exactness, bool) {
		t, e, found := 0.0, result.Exact, false
		for _, n := range names {
			if m, ok := x.c.Columns[col].Run.Database[n]; ok && m.OK() {
				t, e, found = t+max(0, m.V()), result.Weaker(e, m.Exactness), true
			}
		}
		return t, e, found
	}
	va, ea, okA := tot(p.a)
	vb, eb, okB := tot(p.b)
	if !okA || !okB {
		return notMeasured(cl, "no change-buffer figures in this result", rule)
	}
	cl.Rule, cl.Exactness = rule, result.Weaker(ea, eb)
	cl.Before, cl.After, cl.Unit = ptr(va), ptr(vb), "total"
	cl.Measured = fmt.Sprintf("%schanges merged + pages grown %s → %s (innodb_change_buffering = %s)", x.at(p), result.FormatCount(va), result.FormatCount(vb), map[bool]string{true: mode, false: "not recorded"}[known])
	cl.Verdict = verdict(va > 0 || vb > 0)
	return cl
}

// fullPageImages: PostgreSQL writes a page whole into the WAL the first time
// a checkpoint cycle changes it, so the full-page images of
// OFFLINE_USER_SESSION and its indexes count the pages the window dirtied
// that existed before the last checkpoint. Pages the workload created after
// it need none, so two zeros say nothing about page writes.
func (x *claimCtx) fullPageImages(p *claimPair, s claimSpec) result.Claim {
	s.claim += " (PostgreSQL: full-page images of " + userSessions + " and its indexes)"
	s.level, s.object, s.metric = "table", userSessions, result.FpiCount.Name
	cl := x.base(p, s)
	rule := "held when coarse's full-page images are fewer than baseline's beyond noise; not measured when both are 0"
	sum := func(col int) qty {
		t := x.get(col, "table", userSessions, result.FpiCount.Name, false)
		i := x.get(col, "index", userSessions, result.FpiCount.Name, true)
		if !t.ok || !i.ok {
			return qty{why: whyOf(t, i)}
		}
		return qty{v: t.v + i.v, e: result.Weaker(t.e, i.e), ok: true}
	}
	a, b := sum(p.a), sum(p.b)
	switch {
	case !a.ok || !b.ok:
		return notMeasured(cl, whyOf(a, b), rule)
	case a.v == 0 && b.v == 0:
		return notMeasured(cl, "no full-page image in either window: every page written was created after the last checkpoint", rule)
	}
	e := result.Weaker(a.e, b.e)
	beyond, nr := reports.BeyondNoise(result.FpiCount.Name, a.v, b.v, e, x.same(p), 0)
	cl.Rule = "held when coarse's full-page images are fewer than baseline's beyond noise (" + nr + "); not measured when both are 0; else did not hold"
	x.values(&cl, p, result.FpiCount.Name, a.v, b.v, e)
	cl.Verdict = verdict(beyond && b.v < a.v)
	return cl
}
