package restore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

// undoStatements are the statements that undo steps, last applied first,
// as far as their files were applied; fallback is the inverse computed from
// the applied statements of steps undone by a down file or section (nil
// when it has none), for when that down is refused. applied is false when
// nothing of steps was applied.
func (e *Env) undoStatements(steps []Step) (stmts, fallback, failed []string, applied bool) {
	dialect := e.Server.Dialect
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

// RunUndo undoes steps on conn, proving it before it stays: on PostgreSQL
// inside one transaction that commits only when the catalog and the rows
// are those of t.Pre (else it is rolled back, and the undo the catalog
// difference proves is tried the same way); elsewhere each statement is
// held to what the migration changed before any runs (staticRefusal), then
// every statement is tried (one failing does not stop the rest) and the
// rows are compared after. It records in r what ran, failed and was refused.
func (e *Env) RunUndo(ctx context.Context, conn *sql.Conn, steps []Step, t *Target, r *Restoration, final bool) {
	stmts, fallback, failed, applied := e.undoStatements(steps)
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
	bu := e.RowSums(ctx, conn, t.Tabs)
	if e.traits().UndoInTransaction() {
		if txs, ok := transactional(stmts); ok {
			ran, why, rows := e.provedUndo(ctx, conn, txs, t, bu)
			if why == nil {
				record(ran)
				r.Unproven = append(r.Unproven, rows.unproven...)
				r.Rows = append(r.Rows, rows.left...)
				return
			}
			if inv, _ := DiffInverse(t.Pre.Cat, t.Post.Cat); len(inv) > 0 {
				ran2, why2, rows2 := e.provedUndo(ctx, conn, inv, t, bu)
				if why2 == nil {
					record(ran2)
					r.Unproven = append(r.Unproven, rows2.unproven...)
					r.Rows = append(r.Rows, rows2.left...)
					e.replaced(steps, r, "the planned undo was rolled back, not kept: "+strings.Join(why, "; ")+"; the migration was undone instead by what the catalog difference proves ("+strings.Join(ran2, "; ")+")")
					return
				}
				why = append(why, "the undo the catalog difference proves ("+strings.Join(inv, "; ")+") was rolled back too: "+strings.Join(why2, "; "))
			}
			r.Refused = append(r.Refused, why...)
			if t.Pre.same(t.Post) {
				r.Refused = append(r.Refused, "the migration changed nothing the catalog or the rows show, but it ran statements they do not cover: what those did may be left")
			} else {
				r.Refused = append(r.Refused, "nothing that could be proved undoes the migration: it is left applied")
			}
			return
		}
	}
	if refusal := e.staticRefusal(stmts, t); len(refusal) > 0 {
		if fallback == nil || len(e.staticRefusal(fallback, t)) > 0 {
			r.Refused = append(r.Refused, refusal...)
			r.Refused = append(r.Refused, "none of it was run, and nothing that could be proved undoes the migration: it is left applied")
			return
		}
		e.replaced(steps, r, "the planned undo was not run: "+strings.Join(refusal, "; ")+"; the migration was undone instead by the inverse of the applied statements")
		stmts = fallback
	}
	var ran []string
	sess := e.Session(conn)
	for _, s := range stmts {
		if err := sess.Exec(ctx, s); err != nil {
			r.Failed = append(r.Failed, fmt.Sprintf("%s: %v", Short(s), err))
			if rb, e := e.ownSQL("rollback"); e == nil {
				conn.ExecContext(ctx, rb) // leave no failed transaction open for the next statement
			}
			continue
		}
		ran = append(ran, Short(s))
	}
	record(ran)
	au := e.RowSums(ctx, conn, t.Tabs)
	rows := rowsAfterUndo(t, bu, au)
	r.Rows = append(append(r.Rows, rows.changed...), rows.left...)
	r.Unproven = append(r.Unproven, rows.unproven...)
}

// replaced records an undo that was refused and replaced by one check
// proved. A down the user wrote (file, goose section, --down) that would
// not have left the database as it was is a refusal even so (exit 3: the
// undo CI relies on is wrong); check's own computed inverse that the
// proof caught is a note.
func (e *Env) replaced(steps []Step, r *Restoration, why string) {
	for _, st := range steps {
		if st.kind != UndoInverse {
			r.Refused = append(r.Refused, why+"; the database is as it was, but the undo given is wrong")
			return
		}
	}
	r.Skipped = append(r.Skipped, why)
}

// TargetBefore reads what the migration's undo must restore, just before
// it is applied: the catalog, and the rows of every table there.
func (e *Env) TargetBefore(ctx context.Context, user map[string]Table) (*Target, error) {
	tabs, err := e.Tables(ctx, e.DB)
	if err != nil {
		return nil, err
	}
	pre, err := e.Take(ctx, e.DB, tabs)
	if err != nil {
		return nil, err
	}
	return &Target{Pre: pre, User: user, Tabs: tabs}, nil
}

// AfterApply reads the database the migration left (t.Post). A migration
// that changed nothing check can see (a CREATE … IF NOT EXISTS of what is
// there, a BEGIN rolled back) is not undone when the proof covers every
// statement it applied: then it did nothing, and its down could only
// destroy what was there before it. When a statement the proof does not
// cover was applied (a CREATE RULE changes nothing the catalog lists, and
// only its down removes it), the down the user gave runs, under the same
// proof.
func (e *Env) AfterApply(ctx context.Context, t *Target, migration []File, r *Restoration) {
	post, err := e.Take(context.WithoutCancel(ctx), e.DB, t.Tabs)
	if err != nil {
		r.Unproven = append(r.Unproven, "the catalog could not be read after the migration: "+err.Error())
		t.Post = t.Pre
		return
	}
	t.Post = post
	if t.Pre.same(post) {
		applied := false
		if why := uncoveredApplied(e.Server.Dialect, migration); why != "" {
			r.Limits = append(r.Limits, "the migration changed nothing the catalog or the rows show, and its down ran even so: "+why)
			return
		}
		for i := range migration {
			applied = applied || migration[i].Applied > 0
			migration[i].Applied = 0
		}
		if applied {
			r.Skipped = append(r.Skipped, fmt.Sprintf("the migration's undo: the migration changed nothing check can see (%d catalog definitions and the rows of %d tables read before and after it), so running its undo could only destroy what was there before it", len(post.Cat), len(post.Rows)))
		}
	}
}

// RecordedUndo is the undo a killed check recorded, as one step whose
// statements run whole, as a down file's do.
func RecordedUndo(stmts []string) []Step {
	f := File{Path: "the recorded undo"}
	for _, s := range stmts {
		f.Statements = append(f.Statements, sqlparse.Statement{Text: s})
	}
	return []Step{{files: []*File{{Applied: 1}}, down: []File{f}, kind: UndoDownFile}}
}
