package measure

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/result"
)

// predictStatements puts writeamp explain's prediction beside each listed
// write statement (PostgreSQL and MySQL/MariaDB, a read-only catalog read
// after the window) and, where a table had one write statement in the
// window, compares the predicted entries with its indexes' measured leaf
// inserts, naming the usual causes of a gap. A catalog that cannot be read
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
	perTable := map[string]int{}
	for _, p := range preds {
		perTable[p.Table]++
	}
	for i := range run.Statements.Top {
		st := &run.Statements.Top[i]
		p, ok := preds[st.Text]
		if !ok {
			continue
		}
		pr := &result.Predicted{Table: p.Table, HOT: p.HOT, EntriesPerRow: p.EntriesPerRow}
		for _, h := range p.Indexes {
			pr.Indexes = append(pr.Indexes, h.Index)
		}
		if perTable[p.Table] == 1 && st.Rows.OK() {
			pr.Comparison = compare(p, st.Rows.V(), run)
		}
		st.Predicted = pr
	}
}

func compare(p explain.Prediction, rows float64, run *result.Run) string {
	_, table, _ := strings.Cut(p.Table, ".")
	if table == "" {
		table = p.Table
	}
	var parts []string
	for _, h := range p.Indexes {
		ix := run.Index(h.Index)
		if ix == nil {
			continue
		}
		li, ok := ix.Metrics[result.LeafInserts.Name]
		if !ok || !li.OK() {
			continue
		}
		want := h.Entries * rows
		switch {
		case li.V() == want:
			parts = append(parts, fmt.Sprintf("%s %.0f as predicted", h.Index, li.V()))
		case h.Maybe && li.V() < want:
			parts = append(parts, fmt.Sprintf("%s %.0f of at most %.0f (partial: rows outside its predicate get none)", h.Index, li.V(), want))
		case li.V() > want && p.HOT == "possible":
			parts = append(parts, fmt.Sprintf("%s %.0f, predicted %.0f: updates that found their page full were not HOT (newpage_updates)", h.Index, li.V(), want))
		default:
			parts = append(parts, fmt.Sprintf("%s %.0f, predicted %.0f (%s)", h.Index, li.V(), want, li.Exactness))
		}
	}
	if t := run.Table(table); t != nil && p.HOT != "" {
		if hot, ok := t.Metrics["hot_updates"]; ok && hot.OK() {
			parts = append(parts, fmt.Sprintf("HOT updates %.0f of %.0f rows", hot.V(), rows))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "measured leaf inserts: " + strings.Join(parts, "; ")
}
