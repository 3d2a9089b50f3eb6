package explain

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/sqlparse"
)

// Report is the predictions for one file's write statements.
type Report struct {
	Dialect     string       `json:"dialect"`
	Server      string       `json:"server"`
	Predictions []Prediction `json:"predictions"`
	// Skipped are statements the parser could not read.
	Skipped []string `json:"skipped,omitempty"`
}

// File predicts every write statement of SQL text in order: an index the
// file creates (CREATE INDEX, ALTER TABLE … ADD) counts for the statements
// after it. It reads the catalog in one read-only transaction and runs
// nothing else.
func File(ctx context.Context, db *sql.DB, s dialects.Server, text string) (*Report, error) {
	reps, err := Files(ctx, db, s, []string{text})
	if err != nil {
		return nil, err
	}
	return reps[0], nil
}

// Files predicts the write statements of several SQL texts, one report
// each, as if they ran one after the other: an index an earlier text
// creates counts for the statements of the later ones, so `explain
// migration.sql workload.sql` predicts the workload on the migrated schema.
// One read-only transaction reads the catalog for all of them.
func Files(ctx context.Context, db *sql.DB, s dialects.Server, texts []string) ([]*Report, error) {
	read, err := ReaderFor(s.Dialect)
	if err != nil {
		return nil, err
	}
	tx, err := ReadTx(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("explain: open a read-only transaction: %w", err)
	}
	defer tx.Rollback()
	return predictTexts(s, texts, func(schema, name string) (Table, error) { return read(ctx, tx, schema, name) })
}

// predictTexts is Files over any catalog: the tables it read, with the
// indexes the texts created so far, are kept across the texts (not per
// text), which is what makes an earlier file's index count for later ones.
func predictTexts(s dialects.Server, texts []string, read func(schema, name string) (Table, error)) ([]*Report, error) {
	dialect := s.Dialect
	tables := map[string]*Table{}
	lookup := func(schema, name string) (*Table, error) {
		k := strings.ToLower(schema + "." + name)
		if t, ok := tables[k]; ok {
			return t, nil
		}
		t, err := read(schema, name)
		if err != nil {
			return nil, err
		}
		tables[k] = &t
		return &t, nil
	}
	var out []*Report
	for i, text := range texts {
		stmts, err := sqlparse.Split(dialect, text)
		if err != nil {
			return nil, fmt.Errorf("explain: text %d: %w", i+1, err)
		}
		rep := &Report{Dialect: dialect, Server: s.Version}
		for _, st := range stmts {
			if err := st.ParseError(); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("line %d (%s): %v", st.Line, oneLine(st.Text), err))
				continue
			}
			one := []sqlparse.Statement{st}
			for _, ix := range sqlparse.Indexes(dialect, one) {
				t, err := lookup(ix.Schema, ix.Table)
				if err != nil {
					return nil, err
				}
				t.Found = true
				t.Indexes = append(t.Indexes, Index{Name: ix.Name, Method: strings.ToLower(ix.Method), Keys: ix.Keys, Include: ix.Include,
					Predicate: ix.Predicate, Expr: ix.Expression, Partial: ix.Partial, Planned: true})
			}
			for _, w := range sqlparse.Writes(dialect, one) {
				t, err := lookup(w.Schema, w.Table)
				if err != nil {
					return nil, err
				}
				rep.Predictions = append(rep.Predictions, Predict(dialect, s.VersionNum, w, *t))
			}
		}
		out = append(out, rep)
	}
	return out, nil
}

// Render writes the report as text or json.
func Render(w io.Writer, format string, rep *Report) error {
	if format == "json" {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(rep)
	}
	if len(rep.Predictions) == 0 {
		fmt.Fprintln(w, "no INSERT, UPDATE or DELETE statement in the file")
	}
	for _, p := range rep.Predictions {
		fmt.Fprintf(w, "line %d: %s\n", p.Line, short(p.Statement))
		what := p.Kind + " of " + p.Table
		if len(p.Columns) > 0 {
			what += " setting " + strings.Join(p.Columns, ", ")
		}
		fmt.Fprintf(w, "  %s\n", what)
		switch p.HOT {
		case "no":
			fmt.Fprintf(w, "  HOT: no\n")
		case "possible":
			fmt.Fprintf(w, "  HOT: possible, depends on: %s\n", strings.Join(p.DependsOn, ", "))
		}
		bound := ""
		for _, h := range p.Indexes {
			if h.Maybe {
				bound = "at most "
			}
		}
		when := ""
		if p.HOT == "possible" {
			when = " when HOT"
		}
		fmt.Fprintf(w, "  index entries per row%s: %s%g\n", when, bound, p.EntriesPerRow)
		for _, h := range p.Indexes {
			n := fmt.Sprintf("%g", h.Entries)
			switch h.Certainty {
			case Unknown:
				n = "?"
			case UpperBound:
				n = "<=" + n
			}
			if h.IfNotHOT != nil {
				n += fmt.Sprintf(" (%g if not HOT)", *h.IfNotHOT)
			}
			line := fmt.Sprintf("    %-30s %s", h.Index, n)
			if len(h.Roles) > 0 {
				line += "  (" + strings.Join(h.Roles, ", ") + ")"
			}
			if len(h.DependsOn) > 0 {
				line += "  depends on: " + strings.Join(h.DependsOn, ", ")
			}
			if h.Note != "" {
				line += "  " + h.Note
			}
			fmt.Fprintln(w, line)
		}
		for _, r := range p.Reasons {
			fmt.Fprintf(w, "  - %s\n", r)
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped (not parsed): %s\n", s)
	}
	return nil
}

func short(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// Texts predicts statements given one by one (e.g. pg_stat_statements'
// normalised texts, whose $n parameters PostgreSQL's parser reads), keyed by
// the text; a text that is no write, or does not parse, has no entry.
func Texts(ctx context.Context, db *sql.DB, s dialects.Server, texts []string) (map[string]Prediction, error) {
	out := map[string]Prediction{}
	for _, t := range texts {
		rep, err := File(ctx, db, s, t)
		if err != nil {
			return out, err
		}
		if len(rep.Predictions) == 1 {
			out[t] = rep.Predictions[0]
		}
	}
	return out, nil
}
