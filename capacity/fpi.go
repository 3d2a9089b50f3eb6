package capacity

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// fpiAssumption says which full-page-image figure the plan multiplies: the
// window's placement (refresh-token's --checkpoint, in the workload's
// parameters) decides whether it is the worst case or a steady state, and
// either way the production share depends on the checkpoint settings, which
// the plan names as assumed.
func fpiAssumption(res *result.Result, shares string) string {
	settings := checkpointSettings(res.Server.Settings)
	switch res.Workload.Params["checkpoint"] {
	case "steady":
		return fmt.Sprintf("full-page images are taken from a steady-state window (--checkpoint steady: CHECKPOINT, warm-up%s, then the window without one; share of the log: %s): what a server writes between checkpoints once the pages it keeps changing are imaged; %s, with a checkpoint interval long next to the window", warmedUp(res), shares, settings)
	case "none":
		return fmt.Sprintf("full-page images are as measured in a window with no CHECKPOINT before it (--checkpoint none; share of the log: %s): they depend on when the server's last checkpoint ran; %s", shares, settings)
	}
	return fmt.Sprintf("full-page images are counted as measured right after a CHECKPOINT (share of the log: %s): the worst case, every page's first change an image, as if a checkpoint ran before every such window; %s, production writes fewer (run with --warmup N --checkpoint steady for the steady state)", shares, settings)
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
