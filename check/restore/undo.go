package restore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
)

// Step is how one applied file (or, with --down, the whole migration)
// is undone: by statements run whole (a NAME.down.sql file, a goose Down
// section, the --down files), or by the inverse sqlparse computes from the
// statements that were applied.
type Step struct {
	files []*File // what it undoes, in the order they were applied
	how   string  // for the report: "its goose Down section", …
	kind  UndoKind
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

// Plan undoes what check applies to a database: the --schema files
// and the migration, each in reverse order of application.
type Plan struct {
	Schema, Migration []Step
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

// PlanUndo finds, for every file, how it is undone: downs (--down) for the
// whole migration when given; otherwise a file's goose Down section, its
// NAME.down.sql, or the inverse of its statements. A file with none of
// them makes the whole check refuse before anything is applied. ex
// answers IF [NOT] EXISTS from the catalog before anything is applied (nil:
// refused).
func PlanUndo(dialect string, schema, migration, downs []File, ex *sqlparse.Existence) (*Plan, error) {
	if err := refuseUncovered(dialect, schema, migration, len(downs) > 0); err != nil {
		return nil, err
	}
	p := &Plan{}
	var refused []string
	var earlier []sqlparse.Statement
	perFile := func(files []File) ([]Step, error) {
		var steps []Step
		for i := range files {
			f := &files[i]
			st := Step{files: []*File{f}, exist: ex}
			switch {
			case len(f.Down) > 0:
				st.how, st.kind = "its goose Down section", UndoGooseDown
				st.down = []File{{Path: f.Path + " (goose Down)", Flag: f.Flag, Statements: f.Down}}
			case downBeside(f.Path) != "":
				df, err := sqlfile.Load(f.Flag+" (its down file)", []string{downBeside(f.Path)})
				if err != nil {
					return nil, err
				}
				if err := sqlfile.Split(dialect, df); err != nil {
					return nil, err
				}
				st.how, st.down, st.kind = "its down file "+df[0].Path, df, UndoDownFile
			default:
				inv, err := sqlparse.InvertWith(dialect, earlier, f.Statements, ex)
				if err != nil {
					return nil, err
				}
				for _, r := range inv.Refused {
					refused = append(refused, fmt.Sprintf("%s %s %s", f.Flag, f.Path, r))
				}
				st.how, st.inverse, st.kind, st.earlier = "the inverse of its statements", true, UndoInverse, append([]sqlparse.Statement(nil), earlier...)
				earlier = append(earlier, f.Statements...)
			}
			ex = ex.After(f.Statements)
			steps = append(steps, st)
		}
		return steps, nil
	}
	var err error
	if p.Schema, err = perFile(schema); err != nil {
		return nil, err
	}
	if len(downs) > 0 {
		st := Step{how: "--down " + paths(downs), down: downs, kind: UndoDownFlag}
		for i := range migration {
			st.files = append(st.files, &migration[i])
		}
		p.Migration = []Step{st}
	} else if p.Migration, err = perFile(migration); err != nil {
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

// refuseUncovered refuses, before anything is applied, a statement whose
// effect the in-place proof does not cover (sqlparse.Coverage: an
// allowlist) in a file no down of the user's undoes: check could neither
// compute its undo nor prove the database as it was afterwards. A file
// with a goose Down section, a NAME.down.sql, or any migration file when
// --down is given (migrationDown) pairs with a down, which always runs.
func refuseUncovered(dialect string, schema, migration []File, migrationDown bool) error {
	cov := sqlparse.NewCoverage(dialect)
	var out []string
	check := func(files []File, paired bool) {
		for _, f := range files {
			given := paired || len(f.Down) > 0 || downBeside(f.Path) != ""
			for _, st := range f.Statements {
				if why := cov.Uncovered(st); why != "" && !given {
					out = append(out, fmt.Sprintf("%s %s:%d (%s): %s", f.Flag, f.Path, st.Line, Short(st.Text), why))
				}
			}
		}
	}
	check(schema, false)
	check(migration, migrationDown)
	if len(out) == 0 {
		return nil
	}
	return fmt.Errorf("in place, check proves the restore by comparing the catalog and the tables' rows, and these statements change what that comparison does not show:\n  %s\n"+
		"give each such file its undo (NAME.down.sql next to NAME.sql or NAME.up.sql, a goose \"-- +goose Down\" section, or --down FILE|DIR): "+
		"a down you give always runs, under the same proof; or measure on a copy of the database instead of in place; nothing was applied",
		strings.Join(out, "\n  "))
}

// Describe says how the plan undoes the files, for the report.
func (p *Plan) Describe() string {
	var parts []string
	for _, steps := range [][]Step{p.Migration, p.Schema} {
		for _, st := range steps {
			if len(st.files) == 1 && st.kind != UndoDownFlag {
				parts = append(parts, st.files[0].Path+" by "+st.how)
			} else {
				parts = append(parts, "the migration by "+st.how)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// pairName is the migration a file belongs to: its name without
// .up.sql/.down.sql/.sql, so 0002_x.up.sql and 0002_x.down.sql pair.
func pairName(path string) string {
	n := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".down.sql", ".up.sql", ".sql"} {
		if strings.HasSuffix(n, ext) {
			return n[:len(n)-len(ext)]
		}
	}
	return n
}

// appliedDowns are the down files of st that undo what was applied: with
// --down DIR whose files pair by name with the migration's files, only
// those whose up file was applied (a down of a migration that never ran
// would undo something check did not do); otherwise all of them.
func appliedDowns(st Step) []File {
	if st.kind != UndoDownFlag {
		return st.down
	}
	given, applied := map[string]bool{}, map[string]bool{}
	for _, f := range st.files {
		given[pairName(f.Path)] = true
		applied[pairName(f.Path)] = applied[pairName(f.Path)] || f.Applied > 0
	}
	paired := false
	for _, d := range st.down {
		paired = paired || given[pairName(d.Path)]
	}
	if !paired {
		return st.down
	}
	var out []File
	for _, d := range st.down {
		if applied[pairName(d.Path)] {
			out = append(out, d)
		}
	}
	return out
}

// Statements are every undo statement of the plan as if all were applied:
// the migration's, then the --schema files', for the record of the check.
func (p *Plan) Statements(e *Env) []string {
	var out []string
	for _, steps := range [][]Step{p.Migration, p.Schema} {
		saved := map[*File]int{}
		for _, st := range steps {
			for _, f := range st.files {
				saved[f] = f.Applied
				f.Applied = len(f.Statements)
			}
		}
		stmts, _, _, _ := e.undoStatements(steps)
		out = append(out, stmts...)
		for f, n := range saved {
			f.Applied = n
		}
	}
	return out
}

// uncoveredApplied names the first applied migration statement whose
// effect the proof does not cover ("" when it covers them all): such a
// statement got past PlanUndo only because a down the user gave pairs
// with it, and that down must run even when nothing the proof reads
// changed.
func uncoveredApplied(dialect string, migration []File) string {
	cov := sqlparse.NewCoverage(dialect)
	for _, f := range migration {
		for i, st := range f.Statements {
			if why := cov.Uncovered(st); why != "" && i < f.Applied {
				return fmt.Sprintf("%s:%d (%s): %s", f.Path, st.Line, Short(st.Text), why)
			}
		}
	}
	return ""
}

// paths lists the files' paths, comma-separated, for the report.
func paths(files []File) string {
	var ps []string
	for _, f := range files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}
