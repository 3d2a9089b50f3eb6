package measure

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// warmRound is one round of a warm-up repeated until the log rate settles.
type warmRound struct {
	ops   int64
	bytes float64
}

func (r warmRound) perOp() float64 { return r.bytes / float64(r.ops) }

// warmup is what a variant's warm-up did, for its run.
type warmup struct {
	rounds   []warmRound
	settled  bool
	tol      float64
	max      int
	logSrc   string
	repeated bool // --warmup-until-stable: rounds were read at all
}

// settledAt says whether the last two rounds wrote log bytes per operation
// within tol of each other (relative to the larger).
func settledAt(rounds []warmRound, tol float64) bool {
	n := len(rounds)
	if n < 2 {
		return false
	}
	a, b := rounds[n-2].perOp(), rounds[n-1].perOp()
	hi := math.Max(a, b)
	return hi == 0 || math.Abs(a-b)/hi <= tol
}

// warmUntilStable runs the workload's warm-up rounds, each between two
// readings of the server's log position (the timeline's cheap read, on a
// connection of its own), until two rounds in a row agree on log bytes per
// operation or the bound is reached. The first round is the Placement's.
func (e *Experiment) warmUntilStable(ctx context.Context, v string, rw workloads.RoundWarmer, first workloads.Ops, maxRounds int, tol float64) (*warmup, error) {
	win := e.Window
	wu := &warmup{tol: tol, max: maxRounds, repeated: true}
	tl, ok := collectors.TimelineFor(win.Server.Dialect)
	if !ok {
		return nil, fmt.Errorf("--warmup-until-stable: %s has no log position writeamp can read between rounds", win.Server.String())
	}
	series, notes := tl.Series(win.Server, nil)
	for _, s := range series {
		if s.Name == result.LogBytes.Name {
			wu.logSrc = s.Source
		}
	}
	if wu.logSrc == "" {
		return nil, fmt.Errorf("--warmup-until-stable: the log position of %s cannot be read here (%s): warm up with a fixed --warmup instead", win.Server.String(), strings.Join(notes, "; "))
	}
	conn, err := win.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	logAt := func() (float64, error) {
		m, err := tl.Read(ctx, conn, win.Server, nil)
		if err != nil {
			return 0, fmt.Errorf("--warmup-until-stable: reading the log position: %w", err)
		}
		return m[result.LogBytes.Name], nil
	}
	ops := first
	for r := 0; r < maxRounds; r++ {
		if r > 0 {
			if ops, err = rw.WarmupRound(r); err != nil {
				return nil, err
			}
		}
		before, err := logAt()
		if err != nil {
			return nil, err
		}
		st, err := e.runWarm(ctx, ops)
		if err != nil {
			return nil, err
		}
		after, err := logAt()
		if err != nil {
			return nil, err
		}
		var n int64
		for _, c := range st.Operations {
			n += c
		}
		if n == 0 {
			return nil, fmt.Errorf("--warmup-until-stable: warm-up round %d ran no operations", r+1)
		}
		wu.rounds = append(wu.rounds, warmRound{ops: n, bytes: after - before})
		rw.WarmedUp(len(wu.rounds))
		e.logf("variant %s: warm-up round %d: %d operations, %.0f log bytes per operation", v, r+1, n, wu.rounds[r].perOp())
		if wu.settled = settledAt(wu.rounds, tol); wu.settled {
			break
		}
	}
	return wu, nil
}

// runWarm runs warm-up operations outside the window.
func (e *Experiment) runWarm(ctx context.Context, ops workloads.Ops) (workloads.Stats, error) {
	st, err := workloads.Runner{Target: e.Window.Target, Concurrency: e.Concurrency, NoPipeline: e.NoPipeline}.Run(ctx, ops)
	if err != nil {
		return st, err
	}
	if n := sumErrors(st); n > 0 {
		return st, fmt.Errorf("%d warm-up operations failed", n)
	}
	return st, nil
}

// record puts the warm-up's rounds into the run: how many ran, the last
// round's log bytes per operation, and a warning when the rate had not
// settled, so a reader knows the window is not the steady state it asked for.
func (wu *warmup) record(run *result.Run) {
	if wu == nil || !wu.repeated || len(wu.rounds) == 0 {
		return
	}
	rates := make([]string, len(wu.rounds))
	for i, r := range wu.rounds {
		rates[i] = fmt.Sprintf("%.0f", r.perOp())
	}
	src := fmt.Sprintf("--warmup-until-stable: rounds run before the window until two in a row wrote log bytes per operation within %.0f%% (at most %d); per round: %s B/op", 100*wu.tol, wu.max, strings.Join(rates, ", "))
	run.Database[result.WarmupRounds.Name] = result.New(float64(len(wu.rounds)), result.Exact, src)
	settled := 0.0
	if wu.settled {
		settled = 1
	}
	run.Database[result.WarmupSettled.Name] = result.New(settled, result.Exact, src)
	last := wu.rounds[len(wu.rounds)-1]
	run.Database[result.WarmupLogBytesPerOp.Name] = result.New(last.perOp(), result.Derived,
		"the last warm-up round: the difference of "+wu.logSrc+" over the round / its operations (other sessions' log included)")
	if !wu.settled {
		run.Warnings = append(run.Warnings, fmt.Sprintf("the warm-up's log rate did not settle within %.0f%% in %d rounds (log bytes per operation per round: %s): the window is not yet the steady state; raise --warmup", 100*wu.tol, len(wu.rounds), strings.Join(rates, ", ")))
	}
}
