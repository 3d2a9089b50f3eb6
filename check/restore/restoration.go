package restore

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ExitNotAsItWas is the exit code of a check that leaves the database not
// as it was (check.ExitNotAsItWas is this code): the report's restore lines
// name it.
const ExitNotAsItWas = 3

// How a check put the database back.
const (
	MethodWorkload = "workload-schema" // built-in workload: applied inside its own schemas, dropped
	MethodUndo     = "undo"            // --down, down files, goose Down sections or computed inverses
	MethodClone    = "clone"           // measured on copies, dropped; the database itself untouched
	MethodKept     = "kept"            // --keep-migration: what check applied stays
)

// Restoration is how a check left the database: what it undid, and the
// proof, the catalog read before anything was applied against the catalog
// read at the end.
type Restoration struct {
	Method string `json:"method"`
	How    string `json:"how"`
	// Ran are the undo statements that ran, Failed those that failed (with
	// the server's error).
	Ran    []string `json:"ran,omitempty"`
	Failed []string `json:"failed,omitempty"`
	// Checked: the catalog was read again at the end and compared; Compared
	// is how many definitions it held before.
	Checked  bool `json:"catalog_compared"`
	Compared int  `json:"definitions_compared"`
	// Added are definitions there only after (left behind), Removed those
	// there only before (lost).
	Added   []string `json:"left_behind,omitempty"`
	Removed []string `json:"lost,omitempty"`
	// CatalogError says why the catalog could not be compared.
	CatalogError string `json:"catalog_error,omitempty"`
	// Refused are undo statements (or whole undos) that were not run, or
	// were rolled back, because they would have touched what the migration
	// did not create: each names the statement and what it would destroy.
	Refused []string `json:"refused,omitempty"`
	// Rows are tables whose rows the migration or its undo changed and
	// that are not as they were (count and checksum, before and after).
	Rows []string `json:"rows_changed,omitempty"`
	// Unproven says what the comparison could not prove (a table too big to
	// checksum, rows the migration and the workload both wrote).
	Unproven []string `json:"unproven,omitempty"`
	// Limits are what the comparison leaves out, stated.
	Limits []string `json:"limitations,omitempty"`
	// Skipped says why an undo was not run at all (a migration that
	// changed nothing check can see: running its down could only destroy).
	Skipped []string `json:"not_run,omitempty"`
	// Cost is what --clone cost (copies, time, disk).
	Cost string `json:"cost,omitempty"`
	// Original is what --clone saw written in the database itself (or why
	// it could not tell): the copies were measured, the original changed.
	Original []string `json:"original_written,omitempty"`
}

// OK reports a database as it was before the check (or kept as asked).
func (r *Restoration) OK() bool {
	switch r.State() {
	case None, Kept, AsItWas:
		return true
	}
	return false
}

// State is the restore as a typed value.
func (r *Restoration) State() State {
	switch {
	case r == nil:
		return None
	case r.Method == MethodKept:
		return Kept
	case len(r.Refused) > 0:
		return Refused
	case !r.Checked || len(r.Unproven) > 0:
		return Unproven
	case len(r.Added) > 0 || len(r.Removed) > 0 || len(r.Rows) > 0 || len(r.Original) > 0:
		return Failed
	}
	return AsItWas
}

// MarshalJSON adds the typed state to the document.
func (r *Restoration) MarshalJSON() ([]byte, error) {
	type plain Restoration
	return json.Marshal(struct {
		State State `json:"state"`
		*plain
	}{r.State(), (*plain)(r)})
}

// Sentence is the restore in one line, for the result's notes and logs.
func (r *Restoration) Sentence() string {
	switch r.State() {
	case Kept:
		return "restore: none, as asked (--keep-migration): " + r.How
	case AsItWas:
		return fmt.Sprintf("restore: %s; the catalog (%d definitions: objects, columns, indexes, constraints, owners, privileges, policies, comments, settings) and the rows of the tables the migration or its undo wrote to are as they were before check", r.How, r.Compared)
	case Refused:
		return fmt.Sprintf("restore: %s; REFUSED: the undo would not have left the database as it was (it would destroy what the migration did not create, or leave what it did); it was not run or was rolled back (listed below)", r.How)
	case Unproven:
		if !r.Checked {
			return fmt.Sprintf("restore: %s; NOT PROVEN: the catalog could not be read again (%s)", r.How, r.CatalogError)
		}
		return fmt.Sprintf("restore: %s; NOT PROVEN: %s", r.How, strings.Join(r.Unproven, "; "))
	}
	if len(r.Original) > 0 && len(r.Added)+len(r.Removed)+len(r.Rows) == 0 {
		return fmt.Sprintf("restore: %s; NOT AS IT WAS: the database itself was written to while its copies were measured (listed in the report)", r.How)
	}
	return fmt.Sprintf("restore: %s; NOT RESTORED: %d definitions left behind, %d lost, %d tables' rows changed (listed in the report)", r.How, len(r.Added), len(r.Removed), len(r.Rows))
}

// Lines are the restore as the report prints it: the sentence, then what
// differs and what failed.
func (r *Restoration) Lines() []string {
	out := []string{r.Sentence()}
	if r.Cost != "" {
		out = append(out, "cost: "+r.Cost)
	}
	for _, a := range r.Added {
		out = append(out, "  left behind: "+a)
	}
	for _, a := range r.Removed {
		out = append(out, "  lost: "+a)
	}
	for _, a := range r.Rows {
		out = append(out, "  rows changed: "+a)
	}
	for _, f := range r.Refused {
		out = append(out, "  refused: "+f)
	}
	for _, f := range r.Skipped {
		out = append(out, "  not run: "+f)
	}
	for _, f := range r.Failed {
		out = append(out, "  undo failed: "+f)
	}
	for _, o := range r.Original {
		out = append(out, "  the original: "+o)
	}
	for _, f := range r.Limits {
		out = append(out, "  limitation: "+f)
	}
	if !r.OK() {
		out = append(out, fmt.Sprintf("  the database is not as it was before check (what is listed above: what the undo refused or missed, or what the command or another session changed); exit code %d", ExitNotAsItWas))
	}
	return out
}
