package collectors

// WarningKind says what a window's warning is about, so code that keeps or
// drops a warning branches on it and never on the warning's words.
type WarningKind string

const (
	// WarnOther is any warning no code branches on.
	WarnOther WarningKind = ""
	// WarnMaintenance: VACUUM, autovacuum or autoanalyze ran on Object
	// inside the window (Cause names which).
	WarnMaintenance WarningKind = "maintenance"
	// WarnReset: counters went down or objects were recreated.
	WarnReset WarningKind = "reset"
	// WarnCheckpoint: a checkpoint ran inside the window.
	WarnCheckpoint WarningKind = "checkpoint"
	// WarnNotHOT: why Object's updates were not HOT.
	WarnNotHOT WarningKind = "not_hot"
	// WarnDisagree: a server counter and the driver's count differ.
	WarnDisagree WarningKind = "disagree"
	// WarnLogLost: part of the window's log could not be read.
	WarnLogLost WarningKind = "log_lost"
)

// Warning is one thing about a window its numbers include or lack; Text is
// what the report prints.
type Warning struct {
	Kind   WarningKind
	Object string // the table or index it is about, when one
	Cause  string // for WarnMaintenance, which runs metric counted it (e.g. vacuum_runs)
	Text   string
}

// Warn adds a warning to the delta.
func (d *Delta) Warn(kind WarningKind, object, cause, text string) {
	d.Warnings = append(d.Warnings, Warning{Kind: kind, Object: object, Cause: cause, Text: text})
}

// WarningTexts are the delta's warnings as the report prints them.
func (d *Delta) WarningTexts() []string {
	out := make([]string, 0, len(d.Warnings))
	for _, w := range d.Warnings {
		out = append(out, w.Text)
	}
	return out
}
