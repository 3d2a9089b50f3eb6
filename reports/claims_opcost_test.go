package reports

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// splitFig is one operation's figures in a fixture's per-operation section:
// totals over count operations; idx are its index objects' log bytes and
// entries, table the rest of its records (the commit records included).
type splitFig struct {
	op           string
	count        int64
	table, index float64 // log bytes per operation
	indexes      int
	entries      float64 // index entries per operation
}

// withSplit gives run a per-operation section as measure.operationCosts
// writes it (the sweep fixtures predate it), exact and summing to its
// in-scope log.
func withSplit(run *result.Run, figs ...splitFig) {
	m := func(v float64) result.Metric { return result.New(v, result.Exact, "test: pg_walinspect") }
	oc := &result.OperationCosts{Source: "test: pg_walinspect"}
	var sum float64
	for _, f := range figs {
		n := float64(f.count)
		c := result.OperationCost{Operation: f.op, Count: f.count, Transactions: f.count,
			Metrics: map[string]result.Metric{result.LogBytes.Name: m(n * (f.table + f.index)), result.LeafInserts.Name: m(n * f.entries)}}
		c.Objects = append(c.Objects, result.OperationObject{Level: "table", Name: "rt." + userSessions, Metrics: map[string]result.Metric{result.LogBytes.Name: m(n * f.table)}})
		for i := 0; i < f.indexes; i++ {
			c.Objects = append(c.Objects, result.OperationObject{Level: "index", Name: "rt.ix" + string(rune('a'+i)),
				Metrics: map[string]result.Metric{result.LogBytes.Name: m(n * f.index / float64(f.indexes)), result.LeafInserts.Name: m(n * f.entries / float64(f.indexes))}})
		}
		sum += n * (f.table + f.index)
		oc.Operations = append(oc.Operations, c)
	}
	oc.LogBytes, oc.InScope = m(sum), m(sum)
	run.OperationCosts = oc
}

// pgSplits are the sweep's c=1 runs with refreshes of 1,210 B (860 B to 4
// indexes, 4 entries) and 640 B (100 B to 1 index, 0.1 entries).
func pgSplits(t *testing.T) *result.Result {
	r := sweep(t, "claims_pg15_sweep")
	withSplit(runOf(r, "baseline c=1"), splitFig{"refresh", 3000, 350, 860, 4, 4}, splitFig{"login", 300, 2000, 6000, 10, 10})
	withSplit(runOf(r, "coarse c=1"), splitFig{"refresh", 3000, 540, 100, 1, 0.1}, splitFig{"login", 300, 2000, 5000, 9, 9})
	return r
}

const (
	baseSentence   = "a refresh writes 1,210 B of WAL, of which 860 B are index entries in 4 indexes (4.000 entries)"
	coarseSentence = "a refresh writes 640 B of WAL, of which 100 B are index entries in 1 index (0.100 entries)"
)

func TestClaimSaysWhereARefreshsLogGoes(t *testing.T) {
	t.Parallel()
	cl := claimOf(t, pgSplits(t), "reposition.refresh_log")
	wantVerdict(t, cl, result.Held, "")
	for _, want := range []string{"baseline c=1: " + baseSentence, "coarse c=1: " + coarseSentence, "(-47.1%)"} {
		if !strings.Contains(cl.Measured, want) {
			t.Errorf("measured %q lacks %q", cl.Measured, want)
		}
	}
	if cl.Before == nil || cl.After == nil || *cl.Before != 1210 || *cl.After != 640 || cl.Exactness != result.Exact || cl.Unit != "per refresh" {
		t.Errorf("before %v after %v (%s, %s), want 1210 → 640 exact per refresh", cl.Before, cl.After, cl.Exactness, cl.Unit)
	}

	// A split that did not sum to the in-scope log is said approx, with why.
	r := pgSplits(t)
	oc := runOf(r, "coarse c=1").OperationCosts
	oc.LogBytes.Exactness, oc.LogBytes.Note = result.Approx, "the operations sum to 1 B, the window's in-scope log is 2 B: the split is not exact"
	cl = claimOf(t, r, "reposition.refresh_log")
	if cl.Exactness != result.Approx || !strings.Contains(cl.Measured, "640 B of WAL") || !strings.Contains(cl.Measured, "(approx: the operations sum to 1 B") {
		t.Errorf("an inexact split: %s %q", cl.Exactness, cl.Measured)
	}

	// No split: not measured, with why, never the window's log divided.
	r = pgSplits(t)
	runOf(r, "coarse c=1").OperationCosts = nil
	cl = claimOf(t, r, "reposition.refresh_log")
	wantVerdict(t, cl, result.NotMeasured, "no per-operation section")
	if cl.Before != nil || cl.Exactness != result.Unavailable {
		t.Errorf("a missing split has figures: %v %s", cl.Before, cl.Exactness)
	}
	runOf(r, "coarse c=1").Missing = append(runOf(r, "coarse c=1").Missing, result.Missing{Collector: "pg_wal", Reason: "reading the WAL needs pg_read_server_files", Fix: "GRANT pg_read_server_files TO u"})
	wantVerdict(t, claimOf(t, r, "reposition.refresh_log"), result.NotMeasured, "the WAL was not decoded: reading the WAL needs pg_read_server_files GRANT")

	// MariaDB keeps no per-transaction log writeamp decodes: said, not derived.
	cl = claimOf(t, sweep(t, "claims_mariadb_sweep"), "reposition.refresh_log")
	wantVerdict(t, cl, result.NotMeasured, "measured only from PostgreSQL's decoded WAL")
	if !strings.Contains(cl.Why, "redo per refresh is the window's total divided") {
		t.Errorf("MariaDB's why does not say what the per-refresh figure there is: %q", cl.Why)
	}
}

func findingOfKind(fs []result.Finding, kind string) *result.Finding {
	for i := range fs {
		if fs[i].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}

func TestFindingsSayWhatAnOperationWrites(t *testing.T) {
	t.Parallel()
	c := FromResult(pgSplits(t))
	f := findingOfKind(c.Findings, "operation")
	if f == nil {
		t.Fatalf("no operation finding in %v", c.Findings)
	}
	// The c=8 runs have no split: they are left out, not filled in.
	want := "baseline c=1: " + baseSentence + "; coarse c=1: " + coarseSentence + " (from each refresh's own transactions in the decoded log)"
	if f.Text != want || f.Exactness != result.Exact || f.Rank != len(c.Findings) || f.Unit != "per refresh" {
		t.Errorf("finding %+v\nwant text %q, exact, ranked last", *f, want)
	}

	// A single run: its second cost, after the window's log.
	one := pgSplits(t)
	one.Runs = one.Runs[:1]
	fs := FromResult(one).Findings
	if len(fs) < 2 || fs[1].Kind != "cost" || fs[1].Metric != result.OperationLogBytes.Name || !strings.HasPrefix(fs[1].Text, baseSentence) || fs[1].Value == nil || *fs[1].Value != 1210 {
		t.Errorf("single run findings: %+v", fs)
	}

	// Without a split (MariaDB, or the fixture as measured) no finding invents one.
	for _, r := range []*result.Result{sweep(t, "claims_mariadb_sweep"), sweep(t, "claims_pg15_sweep")} {
		if f := findingOfKind(FromResult(r).Findings, "operation"); f != nil {
			t.Errorf("an operation finding without a split: %+v", *f)
		}
	}
}
