package refreshtoken

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// Claims lay Keycloak PR #51904's per-database claims next to what a
// comparison of the refresh-token variants measured on the server's dialect.
// Every verdict follows a rule stated in the claim: a change counts only
// beyond the run's own noise (the findings' rule, beyondNoise). Claims that
// cannot apply to the dialect (HOT outside PostgreSQL, the change buffer
// outside InnoDB) are left out; claims that apply but lack their numbers say
// "not measured" and why.

const (
	expirationIndex = "idx_user_session_expiration_last_refresh"
	userSessions    = "offline_user_session"
	// hotClaimed is the PR's "99%+ HOT" on PostgreSQL.
	hotClaimed = 0.99
	// bufferLockShare: below this share of sampled active time in both
	// variants, PostgreSQL's buffer locks are "lighter-weight" as claimed.
	bufferLockShare = 0.05
	// minWaitSamples: fewer samples than this say nothing about shares.
	minWaitSamples = 50
)

// claimPair is the baseline and coarse columns at one concurrency level.
type claimPair struct{ a, b, level int }

type claimCtx struct {
	c       *reports.Comparison
	res     *result.Result
	spreads map[string]float64
	low     *claimPair // the lowest level: the reference run's one-at-a-time load
	high    *claimPair // the highest level: where contention shows
	sweep   bool
}

// claims returns the claim rows of a comparison, none when it does not hold
// both refresh-token variants.
func claims(c *reports.Comparison, res *result.Result) []result.Claim {
	if res == nil || res.Workload.Name != "refresh-token" {
		return nil
	}
	x := &claimCtx{c: c, res: res, spreads: reports.RepetitionSpread(c)}
	x.pairs()
	if x.low == nil {
		return nil
	}
	dialect := res.Server.Dialect
	var out []result.Claim
	add := func(cl result.Claim) { out = append(out, cl) }
	add(x.fewer(x.low, claimSpec{id: "reposition.leaf_inserts", topic: "reposition",
		claim: "the expiration index gets one entry per login instead of one per refresh (SQL Server: 15,020 → 1,502 leaf inserts for 1,502 logins)",
		level: "index", object: expirationIndex, metric: result.LeafInserts.Name, perLogin: true}))
	add(x.fewer(x.low, claimSpec{id: "reposition.log_bytes", topic: "reposition",
		claim: "less " + dialects.LogName(dialect) + " per refresh (SQL Server: 66,584 → 62,756, −5.7%; units not stated)",
		level: "database", metric: result.LogBytes.Name}))
	add(x.refreshLog(x.low, dialect))
	if dialect == "postgres" {
		add(x.hot(x.low))
	}
	if cl, ok := x.contention(dialect); ok {
		add(cl)
	}
	add(x.fewer(x.low, claimSpec{id: "working_set.index", topic: "working_set",
		claim: "a smaller working set: fewer pages of the expiration index touched",
		level: "index", object: expirationIndex, metric: result.PagesTouched.Name}))
	add(x.fewer(x.low, claimSpec{id: "working_set.table", topic: "working_set",
		claim: "a smaller working set: fewer pages of " + userSessions + " touched",
		level: "table", object: userSessions, metric: result.PagesTouched.Name}))
	add(x.pageWrites(dialect))
	if dialect == "mysql" {
		add(x.changeBuffer(x.low))
	}
	if dialect == "postgres" {
		out = append(out, x.vacuum(x.low)...)
	}
	out = append(out, x.cleanup(x.low)...)
	return out
}

func (x *claimCtx) pairs() {
	byLevel := map[int]*claimPair{}
	var levels []int
	for i, col := range x.c.Columns {
		lv := max(1, reports.Workers(x.res, col.Run))
		p := byLevel[lv]
		if p == nil {
			p = &claimPair{a: -1, b: -1, level: lv}
			byLevel[lv] = p
			levels = append(levels, lv)
		}
		switch {
		case col.Run.Variant == "baseline" && p.a < 0:
			p.a = i
		case col.Run.Variant == "coarse" && p.b < 0:
			p.b = i
		}
	}
	sort.Ints(levels)
	n := 0
	for _, lv := range levels {
		if p := byLevel[lv]; p.a >= 0 && p.b >= 0 {
			if x.low == nil {
				x.low = p
			}
			x.high = p
			n++
		}
	}
	x.sweep = n > 1
}

// qty is one run's figure for a claim.
type qty struct {
	v   float64
	e   result.Exactness
	ok  bool
	why string
}

func metricsAt(r *result.Run, level, object string) map[string]result.Metric {
	switch level {
	case "database":
		return r.Database
	case "table":
		if o := r.Table(object); o != nil {
			return o.Metrics
		}
	case "index":
		if o := r.Index(object); o != nil {
			return o.Metrics
		}
	}
	return nil
}

// asTotal: distinct pages (and full-page images, one per page first changed
// after a checkpoint) do not add up per operation: compared as totals.
func asTotal(metric string) bool {
	return reports.Info(metric).Unit == result.Pages || metric == result.FpiCount.Name
}

// get reads a metric of column col, per operation as the tables show it;
// sum adds it up over the indexes of the table object.
func (x *claimCtx) get(col int, level, object, metric string, sum bool) qty {
	run := x.c.Columns[col].Run
	q := qty{e: result.Exact}
	var ms []map[string]result.Metric
	if sum {
		for _, o := range run.Indexes {
			if strings.EqualFold(o.Table, object) {
				ms = append(ms, o.Metrics)
			}
		}
	} else if m := metricsAt(run, level, object); m != nil {
		ms = append(ms, m)
	}
	for _, mm := range ms {
		m, has := mm[metric]
		if !has {
			continue
		}
		if !m.OK() {
			return qty{why: strings.TrimSpace(metric + " unavailable: " + m.Note)}
		}
		q.v += m.V()
		q.e = result.Weaker(q.e, m.Exactness)
		q.ok = true
	}
	if !q.ok {
		q.why = "no " + metric + " in this result"
		return q
	}
	// The exactness stays the counter's, as the findings' noise rule takes it.
	if x.c.PerOp != "" && !reports.IsRatio(metric) && !reports.Info(metric).Total && !asTotal(metric) && x.c.Denominators[col] > 0 {
		q.v /= x.c.Denominators[col]
	}
	return q
}

func (x *claimCtx) spread(level, object, metric string) float64 {
	for si, s := range x.c.Sections {
		if s.Kind == level && strings.EqualFold(s.Object, object) {
			return x.spreads[fmt.Sprint(si, metric)]
		}
	}
	return 0
}

func (x *claimCtx) same(p *claimPair) bool {
	ok, _ := reports.SameWork(x.res, x.c.Columns[p.a].Run, x.c.Columns[p.b].Run)
	return ok
}

// base fills what every claim of a pair carries.
func (x *claimCtx) base(p *claimPair, s claimSpec) result.Claim {
	cl := result.Claim{ID: s.id, Topic: s.topic, Claim: s.claim, Source: claimsPR, Metric: s.metric, Level: s.level, Object: s.object}
	if p != nil {
		cl.From, cl.To = x.c.Columns[p.a].Label, x.c.Columns[p.b].Label
	}
	return cl
}

func (x *claimCtx) at(p *claimPair) string {
	if x.sweep {
		return fmt.Sprintf("c=%d: ", p.level)
	}
	return ""
}

func notMeasured(cl result.Claim, why, rule string) result.Claim {
	cl.Verdict, cl.Why, cl.Rule, cl.Exactness = result.NotMeasured, why, rule, result.Unavailable
	cl.Measured = "—"
	return cl
}

// claimsPR is where every claim was made: the per-database claim table in
// the pull request's discussion (workloads/refreshtoken/README.md).
const claimsPR = "Keycloak PR #51904"

type claimSpec struct {
	id, topic, claim            string
	level, object, metric, what string
	missing                     string // why, when the result lacks the metric
	sum, perLogin               bool
}

// fewer is a claim that coarse costs less: held when coarse's figure is
// below baseline's beyond the noise rule.
func (x *claimCtx) fewer(p *claimPair, s claimSpec) result.Claim {
	cl := x.base(p, s)
	a := x.get(p.a, s.level, s.object, s.metric, s.sum)
	b := x.get(p.b, s.level, s.object, s.metric, s.sum)
	if !a.ok || !b.ok {
		why := whyOf(a, b)
		if s.missing != "" && (!strings.HasPrefix(why, s.metric+" unavailable")) {
			why = s.missing
		}
		return notMeasured(cl, why, "held when coarse's figure is lower than baseline's beyond noise")
	}
	e := result.Weaker(a.e, b.e)
	sp := 0.0 // a sum over indexes has no one section whose repetitions it could take
	if !s.sum {
		sp = x.spread(s.level, s.object, s.metric)
	}
	beyond, rule := reports.BeyondNoise(s.metric, a.v, b.v, e, x.same(p), sp)
	cl.Rule = "held when coarse's figure is lower than baseline's beyond noise (" + rule + "); else did not hold"
	x.values(&cl, p, s.metric, a.v, b.v, e)
	if s.perLogin {
		if la, lb := x.perLogin(p.a, s), x.perLogin(p.b, s); la >= 0 && lb >= 0 {
			cl.Measured = strings.TrimSuffix(cl.Measured, ")") + fmt.Sprintf("; %.2f → %.2f per login)", la, lb)
		}
	}
	cl.Verdict = verdict(beyond && b.v < a.v)
	return cl
}

// perLogin is a total divided by the run's logins, -1 without them.
func (x *claimCtx) perLogin(col int, s claimSpec) float64 {
	run := x.c.Columns[col].Run
	n := run.Operations["logins"]
	m, ok := metricsAt(run, s.level, s.object)[s.metric]
	if n <= 0 || !ok || !m.OK() {
		return -1
	}
	return m.V() / float64(n)
}

// whyOf is the first reason a figure is missing.
func whyOf(qs ...qty) string {
	for _, q := range qs {
		if !q.ok && q.why != "" {
			return q.why
		}
	}
	return ""
}

func verdict(held bool) string {
	if held {
		return result.Held
	}
	return result.NotHeld
}

// values sets before/after, the change and the measured text.
func (x *claimCtx) values(cl *result.Claim, p *claimPair, metric string, a, b float64, e result.Exactness) {
	cl.Before, cl.After, cl.Exactness = ptr(a), ptr(b), e
	c := x.c
	if asTotal(metric) {
		cc := *x.c
		cc.PerOp = "" // as get compared them: totals
		c = &cc
	}
	cl.Unit = reports.UnitOf(c, metric)
	sa, sb := reports.FmtPair(c, metric, a, b)
	var ch string
	switch {
	case reports.IsRatio(metric):
		cl.Change, cl.ChangeUnit = ptr(100*(b-a)), "points"
		ch = fmt.Sprintf("%+.1f pt", 100*(b-a))
	case a != 0:
		cl.Change, cl.ChangeUnit = ptr(100*(b-a)/math.Abs(a)), "percent"
		ch = fmt.Sprintf("%+.1f%%", *cl.Change)
	case b != 0:
		ch = "new"
	default:
		ch = "="
	}
	unit := ""
	switch {
	case reports.Info(metric).Unit == result.Pages:
		unit = " pages"
	case metric == result.FpiCount.Name:
		unit = " full-page images"
	case strings.HasPrefix(cl.Unit, "per "):
		unit = " " + cl.Unit
	}
	cl.Measured = fmt.Sprintf("%s%s → %s%s (%s)", x.at(p), sa, sb, unit, ch)
}

// vacuum: "less VACUUM work" on PostgreSQL, from --vacuum's figures; one
// row says they are missing when the result has none of them.
func (x *claimCtx) vacuum(p *claimPair) []result.Claim {
	specs := []claimSpec{
		{metric: result.VacuumLogBytes.Name, level: "database", what: "WAL"},
		{metric: result.VacuumPagesScanned.Name, level: "table", object: userSessions, what: "pages scanned on " + userSessions},
		{metric: result.VacuumDeadItemsRemoved.Name, level: "table", object: userSessions, what: "dead line pointers freed in " + userSessions},
		{metric: result.VacuumIndexEntriesRemoved.Name, level: "index", object: userSessions, sum: true, what: "index entries removed from " + userSessions + "'s indexes"},
	}
	vac := "--vacuum not given: run --vacuum measures a VACUUM of the workload's tables after each window"
	any := false
	for _, v := range specs {
		for _, col := range []int{p.a, p.b} {
			any = any || x.get(col, v.level, v.object, v.metric, v.sum).ok
		}
	}
	if !any {
		s := claimSpec{id: "vacuum", topic: "vacuum", claim: "less VACUUM work on PostgreSQL", metric: "vacuum_*"}
		return []result.Claim{notMeasured(x.base(p, s), vac, "held when coarse's figure is lower than baseline's beyond noise")}
	}
	var out []result.Claim
	for _, v := range specs {
		v.id, v.topic, v.missing = "vacuum."+strings.TrimPrefix(v.metric, "vacuum_"), "vacuum", vac
		v.claim = "less VACUUM work on PostgreSQL: " + v.what
		out = append(out, x.fewer(p, v))
	}
	return out
}

// hot: PostgreSQL's updates of OFFLINE_USER_SESSION go from ~0% to 99%+ HOT.
func (x *claimCtx) hot(p *claimPair) result.Claim {
	s := claimSpec{id: "hot", topic: "hot", claim: "PostgreSQL: updates of " + userSessions + " go from ~0% to 99%+ HOT",
		level: "table", object: userSessions, metric: result.HotRatio.Name}
	cl := x.base(p, s)
	a := x.get(p.a, s.level, s.object, s.metric, false)
	b := x.get(p.b, s.level, s.object, s.metric, false)
	rule := fmt.Sprintf("held when coarse's HOT ratio is %.0f%% or more and above baseline's beyond noise", 100*hotClaimed)
	if !a.ok || !b.ok {
		return notMeasured(cl, whyOf(a, b), rule)
	}
	e := result.Weaker(a.e, b.e)
	beyond, nr := reports.BeyondNoise(s.metric, a.v, b.v, e, x.same(p), x.spread(s.level, s.object, s.metric))
	cl.Rule = rule + " (" + nr + "); else did not hold"
	x.values(&cl, p, s.metric, a.v, b.v, e)
	cl.Verdict = verdict(beyond && b.v > a.v && b.v >= hotClaimed)
	return cl
}

func init() {
	reports.RegisterClaims(Name, "claims of "+claimsPR+" against what this comparison measured (baseline → coarse)", claims)
}

func ptr(v float64) *float64 { return &v }
