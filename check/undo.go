package check

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
)

// undoStep is how one applied file (or, with --down, the whole migration)
// is undone: by statements run whole (a NAME.down.sql file, a goose Down
// section, the --down files), or by the inverse sqlparse computes from the
// statements that were applied.
type undoStep struct {
	files []*File // what it undoes, in the order they were applied
	how   string  // for the report: "its goose Down section", …
	kind  restore.UndoKind
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
	if err := refuseUncovered(dialect, schema, migration, len(downs) > 0); err != nil {
		return nil, err
	}
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
				st.how, st.kind = "its goose Down section", restore.UndoGooseDown
				st.down = []File{{Path: f.Path + " (goose Down)", Flag: f.Flag, Statements: f.Down}}
			case downBeside(f.Path) != "":
				df, err := sqlfile.Load(f.Flag+" (its down file)", []string{downBeside(f.Path)})
				if err != nil {
					return nil, err
				}
				if err := sqlfile.Split(dialect, df); err != nil {
					return nil, err
				}
				st.how, st.down, st.kind = "its down file "+df[0].Path, df, restore.UndoDownFile
			default:
				inv, err := sqlparse.InvertWith(dialect, earlier, f.Statements, ex)
				if err != nil {
					return nil, err
				}
				for _, r := range inv.Refused {
					refused = append(refused, fmt.Sprintf("%s %s %s", f.Flag, f.Path, r))
				}
				st.how, st.inverse, st.kind, st.earlier = "the inverse of its statements", true, restore.UndoInverse, append([]sqlparse.Statement(nil), earlier...)
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
		st := undoStep{how: "--down " + paths(downs), down: downs, kind: restore.UndoDownFlag}
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
					out = append(out, fmt.Sprintf("%s %s:%d (%s): %s", f.Flag, f.Path, st.Line, short(st.Text), why))
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

// describe says how the plan undoes the files, for the report.
func (p *undoPlan) describe() string {
	var parts []string
	for _, steps := range [][]undoStep{p.migration, p.schema} {
		for _, st := range steps {
			if len(st.files) == 1 && st.kind != restore.UndoDownFlag {
				parts = append(parts, st.files[0].Path+" by "+st.how)
			} else {
				parts = append(parts, "the migration by "+st.how)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// undoStatements are the statements that undo steps, last applied first,
// as far as their files were applied; fallback is the inverse computed from
// the applied statements of steps undone by a down file or section (nil
// when it has none), for when that down is refused. applied is false when
// nothing of steps was applied.
func (g *Gate) undoStatements(steps []undoStep) (stmts, fallback, failed []string, applied bool) {
	dialect := g.server().Dialect
	fallbackOK := true
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		stepApplied := false
		for _, f := range st.files {
			stepApplied = stepApplied || f.Applied > 0
		}
		if !stepApplied {
			continue
		}
		applied = true
		if st.inverse {
			f := st.files[0]
			inv, err := sqlparse.InvertWith(dialect, st.earlier, f.Statements[:f.Applied], st.exist)
			if err != nil || len(inv.Refused) > 0 {
				failed = append(failed, fmt.Sprintf("%s: no inverse of the applied statements: %v %v", f.Path, err, inv))
				fallbackOK = false
				continue
			}
			stmts = append(stmts, inv.Statements...)
			fallback = append(fallback, inv.Statements...)
			continue
		}
		for _, d := range appliedDowns(st) {
			for _, s := range d.Statements {
				stmts = append(stmts, s.Text)
			}
		}
		for j := len(st.files) - 1; j >= 0; j-- {
			f := st.files[j]
			if f.Applied == 0 {
				continue
			}
			if f.Applied > len(f.Statements) {
				fallbackOK = false // a recorded undo (clean): its statements are not at hand
				continue
			}
			inv, err := sqlparse.InvertWith(dialect, nil, f.Statements[:f.Applied], st.exist)
			if err != nil || len(inv.Refused) > 0 {
				fallbackOK = false
				continue
			}
			fallback = append(fallback, inv.Statements...)
		}
	}
	if !fallbackOK {
		fallback = nil
	}
	return stmts, fallback, failed, applied
}

// runUndo undoes steps on conn, proving it before it stays: on PostgreSQL
// inside one transaction that commits only when the catalog and the rows
// are those of t.pre (else it is rolled back, and the undo the catalog
// difference proves is tried the same way); elsewhere each statement is
// held to what the migration changed before any runs (staticRefusal), then
// every statement is tried (one failing does not stop the rest) and the
// rows are compared after. It records in r what ran, failed and was refused.
func (g *Gate) runUndo(ctx context.Context, conn *sql.Conn, steps []undoStep, t *undoTarget, r *restore.Restoration, final bool) {
	stmts, fallback, failed, applied := g.undoStatements(steps)
	r.Failed = append(r.Failed, failed...)
	if !applied {
		return
	}
	for _, st := range steps {
		for _, f := range st.files {
			f.Applied = 0
		}
	}
	record := func(ran []string) {
		if final {
			r.Ran = append(r.Ran, ran...)
		}
	}
	bu := g.rowSums(ctx, conn, t.tabs)
	if g.traits().UndoInTransaction() {
		if txs, ok := transactional(stmts); ok {
			ran, why, rows := g.provedUndo(ctx, conn, txs, t, bu)
			if why == nil {
				record(ran)
				r.Unproven = append(r.Unproven, rows.unproven...)
				r.Rows = append(r.Rows, rows.left...)
				return
			}
			if inv, _ := restore.DiffInverse(t.pre.cat, t.post.cat); len(inv) > 0 {
				ran2, why2, rows2 := g.provedUndo(ctx, conn, inv, t, bu)
				if why2 == nil {
					record(ran2)
					r.Unproven = append(r.Unproven, rows2.unproven...)
					r.Rows = append(r.Rows, rows2.left...)
					g.replaced(steps, r, "the planned undo was rolled back, not kept: "+strings.Join(why, "; ")+"; the migration was undone instead by what the catalog difference proves ("+strings.Join(ran2, "; ")+")")
					return
				}
				why = append(why, "the undo the catalog difference proves ("+strings.Join(inv, "; ")+") was rolled back too: "+strings.Join(why2, "; "))
			}
			r.Refused = append(r.Refused, why...)
			if t.pre.same(t.post) {
				r.Refused = append(r.Refused, "the migration changed nothing the catalog or the rows show, but it ran statements they do not cover: what those did may be left")
			} else {
				r.Refused = append(r.Refused, "nothing that could be proved undoes the migration: it is left applied")
			}
			return
		}
	}
	if refusal := g.staticRefusal(stmts, t); len(refusal) > 0 {
		if fallback == nil || len(g.staticRefusal(fallback, t)) > 0 {
			r.Refused = append(r.Refused, refusal...)
			r.Refused = append(r.Refused, "none of it was run, and nothing that could be proved undoes the migration: it is left applied")
			return
		}
		g.replaced(steps, r, "the planned undo was not run: "+strings.Join(refusal, "; ")+"; the migration was undone instead by the inverse of the applied statements")
		stmts = fallback
	}
	var ran []string
	sess := g.env().Session(conn)
	for _, s := range stmts {
		if err := sess.Exec(ctx, s); err != nil {
			r.Failed = append(r.Failed, fmt.Sprintf("%s: %v", short(s), err))
			if rb, e := g.ownSQL("rollback"); e == nil {
				conn.ExecContext(ctx, rb) // leave no failed transaction open for the next statement
			}
			continue
		}
		ran = append(ran, short(s))
	}
	record(ran)
	au := g.rowSums(ctx, conn, t.tabs)
	rows := rowsAfterUndo(t, bu, au)
	r.Rows = append(append(r.Rows, rows.changed...), rows.left...)
	r.Unproven = append(r.Unproven, rows.unproven...)
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
func appliedDowns(st undoStep) []File {
	if st.kind != restore.UndoDownFlag {
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

// replaced records an undo that was refused and replaced by one check
// proved. A down the user wrote (file, goose section, --down) that would
// not have left the database as it was is a refusal even so (exit 3: the
// undo CI relies on is wrong); check's own computed inverse that the
// proof caught is a note.
func (g *Gate) replaced(steps []undoStep, r *restore.Restoration, why string) {
	for _, st := range steps {
		if st.kind != restore.UndoInverse {
			r.Refused = append(r.Refused, why+"; the database is as it was, but the undo given is wrong")
			return
		}
	}
	r.Skipped = append(r.Skipped, why)
}

// statements are every undo statement of the plan as if all were applied:
// the migration's, then the --schema files', for the record of the check.
func (p *undoPlan) statements(g *Gate) []string {
	var out []string
	for _, steps := range [][]undoStep{p.migration, p.schema} {
		saved := map[*File]int{}
		for _, st := range steps {
			for _, f := range st.files {
				saved[f] = f.Applied
				f.Applied = len(f.Statements)
			}
		}
		stmts, _, _, _ := g.undoStatements(steps)
		out = append(out, stmts...)
		for f, n := range saved {
			f.Applied = n
		}
	}
	return out
}

// uncoveredApplied names the first applied migration statement whose
// effect the proof does not cover ("" when it covers them all): such a
// statement got past planUndo only because a down the user gave pairs
// with it, and that down must run even when nothing the proof reads
// changed.
func (g *Gate) uncoveredApplied() string {
	cov := sqlparse.NewCoverage(g.server().Dialect)
	for _, f := range g.Migration {
		for i, st := range f.Statements {
			if why := cov.Uncovered(st); why != "" && i < f.Applied {
				return fmt.Sprintf("%s:%d (%s): %s", f.Path, st.Line, short(st.Text), why)
			}
		}
	}
	return ""
}

// quietBefore reads the user's tables' rows just before the command runs on
// the before side of repetition i (nil without an undo plan): the first
// repetition without --schema starts where start was read.
func (g *Gate) quietBefore(ctx context.Context, plan *undoPlan, i int, user map[string]tableInfo, start snapshot) map[string]rowSum {
	if plan == nil {
		return nil
	}
	if i == 0 && len(g.Schema) == 0 {
		return start.rows
	}
	return g.rowSums(ctx, g.Window.DB, user)
}
