package measure

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Node is another copy of the measured database (a standby, a replica, a
// cluster peer) measured in the same window as the command: its own before
// and after snapshot around the one workload, reported as a run of its own
// beside the primary's, with the cluster's total log.
type Node struct {
	Label  string // as the reports name the node's run
	Window *Window
	Scope  collectors.Scope
	span   *Span
}

// beginNodes instruments and opens each node's window after the primary's;
// the caller defers restoreNodes.
func beginNodes(ctx context.Context, nodes []*Node, res *result.Result) error {
	for _, n := range nodes {
		for _, note := range n.Window.Instrument(ctx, false) {
			res.Notes = append(res.Notes, n.Label+": "+note)
		}
		sp, err := n.Window.Begin(ctx, n.Scope)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Label, err)
		}
		n.span = sp
	}
	return nil
}

func restoreNodes(ctx context.Context, nodes []*Node) {
	for _, n := range nodes {
		if n.span != nil {
			n.span.StopObserving(ctx)
		}
		n.Window.Restore(ctx, 0)
	}
}

// endNodes closes each node's window once the primary's has ended (so the
// standbys wait for the primary's final position) and adds its run, and a
// note with the cluster's log: the primary's and every node's.
func endNodes(ctx context.Context, nodes []*Node, until Until, st workloads.Stats, main string, res *result.Result) error {
	if len(nodes) == 0 || len(res.Runs) == 0 {
		return nil
	}
	for _, n := range nodes {
		delta, err := n.span.End(ctx, until)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Label, err)
		}
		run := BuildRun(n.Label, delta, st, main)
		run.Label = n.Label
		run.NodeOf = res.Runs[0].Variant
		run.Warnings = append(n.span.Warnings, run.Warnings...)
		n.span.AddToRun(run)
		res.Runs = append(res.Runs, *run)
		if rp := run.Database["replayed_log_bytes"]; rp.Exactness != result.Exact && strings.Contains(rp.Note, "did not replay") {
			// Named beside the cluster's log: that total counts what the
			// node received, and its replayed figures are not the window's.
			res.Notes = append(res.Notes, n.Label+": "+rp.Note)
		}
	}
	res.Notes = append(res.Notes, clusterNote(res.Runs))
	return nil
}

// clusterNote sums the log of every node's run: the primary's and each
// copy's own.
func clusterNote(runs []result.Run) string {
	total, parts := 0.0, []string{}
	e := result.Exact
	for _, r := range runs {
		m := r.Database["log_bytes"]
		if !m.OK() {
			parts = append(parts, r.Variant+" n/a")
			e = result.Unavailable
			continue
		}
		total += m.V()
		e = result.Weaker(e, m.Exactness)
		parts = append(parts, r.Variant+" "+result.FormatBytes(m.V()))
	}
	if e == result.Unavailable {
		return fmt.Sprintf("cluster log: unavailable (%s): a node's log bytes are unavailable", strings.Join(parts, ", "))
	}
	return fmt.Sprintf("cluster log: %s on %d nodes (%s), each node's log_bytes (%s)", result.FormatBytes(total), len(runs), strings.Join(parts, ", "), e)
}

// DiffNodes adds, to a diff of two snapshot files, the run of each node
// both files hold a reading of (snapshot --node), and the cluster's log.
// A node's log readers need it connected at diff time, which diff does not
// do: what only they give is listed missing, as on a diff without --dsn.
func DiffNodes(ctx context.Context, in DiffInput, res *result.Result) error {
	if len(res.Runs) == 0 {
		return nil
	}
	after := map[string]*SnapshotFile{}
	for _, n := range in.After.Nodes {
		after[n.Label] = n
	}
	added := false
	for _, bn := range in.Before.Nodes {
		an, ok := after[bn.Label]
		if !ok {
			res.Notes = append(res.Notes, bn.Label+": only "+in.Before.Path+" has a reading of it: not diffed")
			continue
		}
		delete(after, bn.Label)
		r, err := DiffSnapshots(ctx, DiffInput{Before: bn, After: an, Label: bn.Label, Log: in.Log})
		if err != nil {
			return fmt.Errorf("%s: %w", bn.Label, err)
		}
		for _, n := range r.Notes {
			res.Notes = append(res.Notes, bn.Label+": "+n)
		}
		run := r.Runs[0]
		run.Label = bn.Label
		run.NodeOf = res.Runs[0].Variant
		res.Runs = append(res.Runs, run)
		added = true
	}
	for l := range after {
		res.Notes = append(res.Notes, l+": only "+in.After.Path+" has a reading of it: not diffed")
	}
	if added {
		res.Notes = append(res.Notes, clusterNote(res.Runs))
	}
	return nil
}
