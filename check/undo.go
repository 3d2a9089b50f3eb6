package check

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

// undoStep is how one applied file (or, with --down, the whole migration)
// is undone: by statements run whole (a NAME.down.sql file, a goose Down
// section, the --down files), or by the inverse sqlparse computes from the
// statements that were applied.
type undoStep struct {
	files []*File // what it undoes, in the order they were applied
	how   string  // for the report: "its goose Down section", …
	down  []File
	// inverse: computed from the applied statements; earlier are the
	// statements of the files before it that are undone the same way (a
	// table they create is dropped by their undo, so filling it needs none).
	inverse bool
	earlier []sqlparse.Statement
	// exist answers IF [NOT] EXISTS as of just before the file is applied
	// (the catalog before check, and what the files before it create).
	exist *sqlparse.Existence
}

// undoPlan undoes what check applies to a database: the --schema files
// and the migration, each in reverse order of application.
type undoPlan struct {
	schema, migration []undoStep
}

// downBeside is the golang-migrate/Flyway-style undo file of path
// (NAME.down.sql next to NAME.sql or NAME.up.sql), "" when there is none.
func downBeside(path string) string {
	base := path[:len(path)-len(filepath.Ext(path))]
	if strings.HasSuffix(strings.ToLower(base), ".up") {
		base = base[:len(base)-len(".up")]
	}
	for _, ext := range []string{".down.sql", ".down.SQL", ".DOWN.SQL"} {
		if st, err := os.Stat(base + ext); err == nil && st.Mode().IsRegular() {
			return base + ext
		}
	}
	return ""
}

// planUndo finds, for every file, how it is undone: downs (--down) for the
// whole migration when given; otherwise a file's goose Down section, its
// NAME.down.sql, or the inverse of its statements. A file with none of
// them makes the whole check refuse before anything is applied. ex
// answers IF [NOT] EXISTS from the catalog before anything is applied (nil:
// refused).
func planUndo(dialect string, schema, migration, downs []File, ex *sqlparse.Existence) (*undoPlan, error) {
	p := &undoPlan{}
	var refused []string
	var earlier []sqlparse.Statement
	perFile := func(files []File) ([]undoStep, error) {
		var steps []undoStep
		for i := range files {
			f := &files[i]
			st := undoStep{files: []*File{f}, exist: ex}
			switch {
			case len(f.Down) > 0:
				st.how = "its goose Down section"
				st.down = []File{{Path: f.Path + " (goose Down)", Flag: f.Flag, Statements: f.Down}}
			case downBeside(f.Path) != "":
				df, err := LoadFiles(f.Flag+" (its down file)", []string{downBeside(f.Path)})
				if err != nil {
					return nil, err
				}
				if err := Split(dialect, df); err != nil {
					return nil, err
				}
				st.how, st.down = "its down file "+df[0].Path, df
			default:
				inv, err := sqlparse.InvertWith(dialect, earlier, f.Statements, ex)
				if err != nil {
					return nil, err
				}
				for _, r := range inv.Refused {
					refused = append(refused, fmt.Sprintf("%s %s %s", f.Flag, f.Path, r))
				}
				st.how, st.inverse, st.earlier = "the inverse of its statements", true, append([]sqlparse.Statement(nil), earlier...)
				earlier = append(earlier, f.Statements...)
			}
			ex = ex.After(f.Statements)
			steps = append(steps, st)
		}
		return steps, nil
	}
	var err error
	if p.schema, err = perFile(schema); err != nil {
		return nil, err
	}
	if len(downs) > 0 {
		st := undoStep{how: "--down " + paths(downs), down: downs}
		for i := range migration {
			st.files = append(st.files, &migration[i])
		}
		p.migration = []undoStep{st}
	} else if p.migration, err = perFile(migration); err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("check restores the database after measuring, and cannot prove how to undo:\n  %s\n"+
			"pass --down FILE|DIR (the migration's undo; NAME.down.sql next to NAME.sql or NAME.up.sql, or a goose "+
			"\"-- +goose Down\" section, is used by itself), --clone (PostgreSQL: measure on copies of the database), "+
			"or --keep-migration (accept that what check applies stays); nothing was applied",
			strings.Join(refused, "\n  "))
	}
	return p, nil
}

// describe says how the plan undoes the files, for the report.
func (p *undoPlan) describe() string {
	var parts []string
	for _, steps := range [][]undoStep{p.migration, p.schema} {
		for _, st := range steps {
			if len(st.files) == 1 && !strings.HasPrefix(st.how, "--down") {
				parts = append(parts, st.files[0].Path+" by "+st.how)
			} else {
				parts = append(parts, "the migration by "+st.how)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// run undoes steps in reverse, as far as their files were applied, on
// conn; every statement is tried (one failing does not stop the rest, the
// catalog comparison says what is left). It returns what ran and what
// failed.
func (g *Gate) runUndo(ctx context.Context, conn *sql.Conn, steps []undoStep) (ran, failed []string) {
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		applied := false
		for _, f := range st.files {
			applied = applied || f.Applied > 0
		}
		if !applied {
			continue
		}
		var stmts []string
		if st.inverse {
			f := st.files[0]
			inv, err := sqlparse.InvertWith(g.server().Dialect, st.earlier, f.Statements[:f.Applied], st.exist)
			if err != nil || len(inv.Refused) > 0 {
				failed = append(failed, fmt.Sprintf("%s: no inverse of the applied statements: %v %v", f.Path, err, inv))
				continue
			}
			stmts = inv.Statements
		} else {
			for _, d := range st.down {
				for _, s := range d.Statements {
					stmts = append(stmts, s.Text)
				}
			}
		}
		for _, s := range stmts {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", short(s), err))
				if rb, e := g.ownSQL("rollback"); e == nil {
					conn.ExecContext(ctx, rb) // leave no failed transaction open for the next statement
				}
				continue
			}
			ran = append(ran, short(s))
		}
		for _, f := range st.files {
			f.Applied = 0
		}
	}
	return ran, failed
}
