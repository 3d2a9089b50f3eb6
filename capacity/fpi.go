package capacity

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// fpiAssumption says which full-page-image figure the plan multiplies: the
// window's placement (refresh-token's --checkpoint, in the workload's
// parameters) decides whether it is the worst case or a steady state, and
// either way the production share depends on the checkpoint settings, which
// the plan names as assumed.
func fpiAssumption(res *result.Result, shares string) string {
	settings := checkpointSettings(res.Server.Settings)
	warm := "warm-up" + warmedUp(res)
	if res.Workload.Name == "command" {
		warm = "a warm-up run of the command"
	}
	switch windowPlacement(res) {
	case "steady":
		return fmt.Sprintf("full-page images are taken from a steady-state window (--checkpoint steady: CHECKPOINT, %s, then the window without one; share of the log: %s): what a server writes between checkpoints once the pages it keeps changing are imaged; %s, with a checkpoint interval long next to the window", warm, shares, settings)
	case "none":
		return fmt.Sprintf("full-page images are as measured in a window with no CHECKPOINT before it (share of the log: %s): they depend on when the server's last checkpoint ran; %s", shares, settings)
	}
	return fmt.Sprintf("scaled from a window that starts right after a CHECKPOINT: full-page images are %s of its WAL, the worst case, every page's first change an image, as if a checkpoint ran before every such window; %s; steady state writes fewer: %s", shares, settings, steadyAdvice(res))
}

// windowPlacement is where the result's window opened: the --checkpoint
// run and measure record, or for a diff whether its first snapshot was
// taken with a CHECKPOINT (the window's warning says so).
func windowPlacement(res *result.Result) string {
	if cp, ok := res.Workload.Params["checkpoint"].(string); ok && cp != "" {
		return cp
	}
	if res.Workload.Name == "diff" {
		for _, r := range res.Runs {
			for _, w := range r.Warnings {
				if strings.HasPrefix(w, dialects.AfterCheckpoint) {
					return "before"
				}
			}
		}
		return "none"
	}
	return "before"
}

// steadyAdvice is how to measure the steady state with the command that
// wrote the result, with flags it has.
func steadyAdvice(res *result.Result) string {
	switch res.Workload.Name {
	case "command":
		return "measure with --checkpoint steady"
	case "diff":
		return "take the first snapshot after a warm-up, without --checkpoint"
	}
	return "run with --warmup N --checkpoint steady"
}

// checkpointSettings names the checkpoint settings the plan assumes: the
// measured server's, as the result recorded them (server.settings), or, for
// a result written before they were recorded, that they are unknown.
func checkpointSettings(set map[string]string) string {
	cp, wal := set["checkpoint_timeout"], set["max_wal_size"]
	if cp != "" && wal != "" {
		return fmt.Sprintf("checkpoint_timeout %s and max_wal_size %s assumed (the measured server's, read when it was measured)", cp, wal)
	}
	return "the measured server's checkpoint_timeout and max_wal_size are unknown (the result does not record them; PostgreSQL's defaults are 5min and 1GB)"
}

// warmedUp says how long the warm-up ran when it repeated until the log
// rate settled (--warmup-until-stable), and whether it did.
func warmedUp(res *result.Result) string {
	var parts []string
	for _, r := range res.Runs {
		m := r.Database[result.WarmupRounds.Name]
		if !m.OK() {
			continue
		}
		label := r.Variant
		if r.Label != "" {
			label = r.Label
		}
		settled := "settled"
		if s := r.Database[result.WarmupSettled.Name]; s.OK() && s.V() == 0 {
			settled = "not settled: the window is not yet the steady state"
		}
		parts = append(parts, fmt.Sprintf("%s %.0f rounds, %s", label, m.V(), settled))
	}
	if len(parts) == 0 {
		return ""
	}
	return " repeated until its log rate per operation settled (" + strings.Join(parts, "; ") + ")"
}
