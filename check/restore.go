package check

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

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
	// Cost is what --clone cost (copies, time, disk).
	Cost string `json:"cost,omitempty"`
}

// OK reports a database as it was before the check (or kept as asked).
func (r *Restoration) OK() bool {
	if r == nil || r.Method == MethodKept {
		return true
	}
	return r.Checked && len(r.Added) == 0 && len(r.Removed) == 0
}

// Sentence is the restore in one line, for the result's notes and logs.
func (r *Restoration) Sentence() string {
	switch {
	case r.Method == MethodKept:
		return "restore: none, as asked (--keep-migration): " + r.How
	case r.OK():
		return fmt.Sprintf("restore: %s; the catalog (%d definitions: objects, columns, indexes, constraints) is as it was before check", r.How, r.Compared)
	case !r.Checked:
		return fmt.Sprintf("restore: %s; NOT PROVEN: the catalog could not be read again (%s)", r.How, r.CatalogError)
	}
	return fmt.Sprintf("restore: %s; NOT RESTORED: %d definitions left behind, %d lost (listed in the report)", r.How, len(r.Added), len(r.Removed))
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
	for _, f := range r.Failed {
		out = append(out, "  undo failed: "+f)
	}
	if !r.OK() && r.Method != MethodKept {
		out = append(out, "  the database is not as it was before check (the undo missed these, or the command or another session changed them): put it back by hand; exit code 2")
	}
	return out
}

// compareCatalog reads the catalog again, even after an interrupt, and
// holds it to before.
func (g *Gate) compareCatalog(ctx context.Context, q dialects.Querier, before Catalog, r *Restoration) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	after, err := ReadCatalog(cctx, q, g.server())
	if err != nil {
		r.CatalogError = err.Error()
		g.logf("warning: restore not proven: %v", err)
		return
	}
	r.Checked, r.Compared = true, len(before)
	r.Added, r.Removed = before.Diff(after)
	if !r.OK() {
		g.logf("warning: %s", strings.Join(r.Lines(), "\n"))
	}
}
