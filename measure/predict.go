package measure

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/result"
)

// predictStatements puts writeamp explain's prediction beside each listed
// write statement (PostgreSQL and MySQL/MariaDB, a read-only catalog read
// after the window) and compares the predicted entries with the indexes'
// measured leaf inserts, naming the usual causes of a gap: per statement
// where a table had one listed write statement, per table where it had
// several (the window's counts are per index, not per statement). A catalog that cannot be read
// leaves the statements without predictions.
func predictStatements(ctx context.Context, db *sql.DB, s dialects.Server, run *result.Run) {
	if run.Statements == nil {
		return
	}
	if _, err := explain.ReaderFor(s.Dialect); err != nil {
		return // explain reads no catalog of this dialect
	}
	var texts []string
	for _, st := range run.Statements.Top {
		texts = append(texts, st.Text)
	}
	preds, err := explain.Texts(ctx, db, s, texts)
	if err != nil {
		run.Warnings = append(run.Warnings, "explain: the statements' predictions were not read: "+err.Error())
	}
	// The window's per-index counts are per table: a table written by one
	// listed statement compares them with that statement's prediction, one
	// written by several with the sum of their predictions, said so.
	perTable := map[string][]written{}
	for i := range run.Statements.Top {
		st := &run.Statements.Top[i]
		p, ok := preds[st.Text]
		if !ok {
			continue
		}
		pr := &result.Predicted{Table: p.Table, HOT: p.HOT, EntriesPerRow: p.EntriesPerRow}
		for _, h := range p.Indexes {
			pr.Indexes = append(pr.Indexes, h.Index)
			pr.AtMost = pr.AtMost || h.Maybe
		}
		st.Predicted = pr
		perTable[p.Table] = append(perTable[p.Table], written{p, st})
	}
	for table, ws := range perTable {
		cmp := compare(ws, run)
		if len(ws) > 1 && cmp != "" {
			cmp = fmt.Sprintf("table-level: %d listed write statements share %s's per-index counts, compared with the sum of their predictions; %s", len(ws), table, cmp)
		}
		for _, w := range ws {
			w.st.Predicted.Comparison = cmp
		}
	}
}

// written is a listed statement and its prediction.
type written struct {
	p  explain.Prediction
	st *result.Statement
}

// compare holds the predicted entries of a table's statements (entries per
// row times each one's rows) to its indexes' measured leaf inserts, naming
// the usual cause of a gap; "" when a statement's rows are unknown or no
// index was measured.
func compare(ws []written, run *result.Run) string {
	want := map[string]float64{}
	maybe, unknown := map[string]bool{}, map[string]bool{}
	var order []string
	hotPossible, anyHOT := false, false
	deps := map[string]bool{}
	var rows float64
	for _, w := range ws {
		if !w.st.Rows.OK() {
			return ""
		}
		if w.p.HOT != "" {
			anyHOT = true
			rows += w.st.Rows.V()
		}
		hotPossible = hotPossible || w.p.HOT == "possible"
		for _, d := range w.p.DependsOn {
			deps[d] = true
		}
		for _, h := range w.p.Indexes {
			if _, seen := want[h.Index]; !seen {
				order = append(order, h.Index)
			}
			want[h.Index] += h.Entries * w.st.Rows.V()
			maybe[h.Index] = maybe[h.Index] || h.Maybe
			unknown[h.Index] = unknown[h.Index] || h.Certainty == explain.Unknown
		}
	}
	table := ws[0].p.Table
	if _, t, ok := strings.Cut(table, "."); ok {
		table = t
	}
	var parts []string
	for _, name := range order {
		ix := run.Index(name)
		if ix == nil && strings.HasPrefix(name, "pg_toast.") {
			ix = toastIndexOf(run, table)
		}
		if ix == nil {
			continue
		}
		if unknown[name] {
			if li, ok := ix.Metrics[result.LeafInserts.Name]; ok && li.OK() {
				parts = append(parts, fmt.Sprintf("%s %.0f (predicted: depends on the new values' size)", ix.Name, li.V()))
			}
			continue
		}
		li, ok := ix.Metrics[result.LeafInserts.Name]
		if !ok || !li.OK() {
			continue
		}
		w := want[name]
		switch {
		case li.V() == w:
			parts = append(parts, fmt.Sprintf("%s %.0f as predicted", name, li.V()))
		case maybe[name] && li.V() < w:
			parts = append(parts, fmt.Sprintf("%s %.0f of at most %.0f (partial: rows outside its predicate get none)", name, li.V(), w))
		case li.V() > w && hotPossible:
			parts = append(parts, fmt.Sprintf("%s %.0f, predicted %.0f: updates that found their page full were not HOT (newpage_updates)", name, li.V(), w))
		default:
			parts = append(parts, fmt.Sprintf("%s %.0f, predicted %.0f (%s)", name, li.V(), w, li.Exactness))
		}
	}
	// Every index of the table that got entries is named, predicted or not.
	for i := range run.Indexes {
		ix := &run.Indexes[i]
		if !strings.EqualFold(ix.Table, table) || predictedIndex(order, ix.Name) {
			continue
		}
		if li, ok := ix.Metrics[result.LeafInserts.Name]; ok && li.OK() && li.V() > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f, not predicted", ix.Name, li.V()))
		}
	}
	if t := run.Table(table); t != nil && anyHOT {
		if hot, ok := t.Metrics["hot_updates"]; ok && hot.OK() {
			part := fmt.Sprintf("HOT updates %.0f of %.0f rows", hot.V(), rows)
			if hotPossible && len(deps) > 0 {
				var ds []string
				for d := range deps {
					ds = append(ds, d)
				}
				sort.Strings(ds)
				part += " (predicted possible: depends on " + strings.Join(ds, ", ") + ")"
			}
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "measured leaf inserts: " + strings.Join(parts, "; ")
}

// predictedIndex: the measured index is one the prediction lists (a TOAST
// index under its table's name in the run, pg_toast.… in the prediction).
func predictedIndex(order []string, name string) bool {
	for _, n := range order {
		if strings.EqualFold(n, name) || strings.HasPrefix(n, "pg_toast.") && strings.Contains(strings.ToLower(name), "toast") {
			return true
		}
	}
	return false
}

// toastIndexOf is the run's TOAST index of a table, if it lists one.
func toastIndexOf(run *result.Run, table string) *result.Object {
	for i := range run.Indexes {
		ix := &run.Indexes[i]
		if strings.EqualFold(ix.Table, table) && strings.Contains(strings.ToLower(ix.Name), "toast") {
			return ix
		}
	}
	return nil
}
