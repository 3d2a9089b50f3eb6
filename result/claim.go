package result

// Claim is one of Keycloak PR #51904's per-database claims next to what a
// comparison of the refresh-token variants measured, with a verdict by a
// stated rule (never written by hand). Added to schema_version 1; readers
// that do not know it ignore it.
type Claim struct {
	// ID names the claim across results ("reposition.leaf_inserts").
	ID     string `json:"id"`
	Topic  string `json:"topic"`  // reposition, hot, contention, working_set, page_writes, change_buffer, vacuum
	Claim  string `json:"claim"`  // the claim, short, as the PR's discussion makes it
	Source string `json:"source"` // who made it: "Keycloak PR #51904"
	// Metric and Object say what was compared (result.LeafInserts on
	// "idx_user_session_expiration_last_refresh"); a contention claim's
	// metric is the wait family it sums.
	Metric string   `json:"metric,omitempty"`
	Level  string   `json:"level,omitempty"` // database, table, index, run
	Object string   `json:"object,omitempty"`
	From   string   `json:"from,omitempty"` // the baseline run's label
	To     string   `json:"to,omitempty"`   // the coarse run's label
	Unit   string   `json:"unit,omitempty"` // "per refresh", "total", "ratio" (shares and HOT ratios)
	Before *float64 `json:"before,omitempty"`
	After  *float64 `json:"after,omitempty"`
	// Change is (after - before) / before in percent, or in points for
	// ratios (ChangeUnit says which); absent from zero.
	Change     *float64 `json:"change,omitempty"`
	ChangeUnit string   `json:"change_unit,omitempty"`
	// Measured is the cell the reports print: both values and the change.
	Measured  string    `json:"measured"`
	Exactness Exactness `json:"exactness"` // the weakest of its inputs
	// Verdict is "held", "did not hold" or "not measured" (Why says why).
	Verdict string `json:"verdict"`
	Why     string `json:"why,omitempty"`
	Rule    string `json:"rule"`
}

// Verdicts of a claim.
const (
	Held        = "held"
	NotHeld     = "did not hold"
	NotMeasured = "not measured"
)
