package restore

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

// Target is what an undo must put back: the database just before (Pre)
// and just after (Post) what it undoes was applied, and the user's tables
// (there before check).
type Target struct {
	Pre, Post Snapshot
	User      map[string]Table
	Tabs      map[string]Table // every table at Pre, with its columns then
	// Quiet are the user's tables' rows just before the command ran on the
	// before side (nil: not read): a table the command left as it was there
	// is not the command's to write (see rowsAfterUndo).
	Quiet map[string]RowSum
}

var (
	reTxnControl  = regexp.MustCompile(`(?is)^\s*(begin|start\s+transaction|commit|end)(\s+(work|transaction))?\s*;?\s*$`)
	reNoTxnBlock  = regexp.MustCompile(`(?is)\b(concurrently|vacuum|alter\s+system|create\s+database|drop\s+database|reindex\s+(database|system))\b`)
	reTxnRollback = regexp.MustCompile(`(?is)^\s*(rollback|abort)\b`)
)

// transactional reports statements that can run inside one transaction
// block on PostgreSQL: a down file's own BEGIN/COMMIT are dropped (check's
// block takes their place), ROLLBACK and what refuses a block are not.
func transactional(stmts []string) ([]string, bool) {
	var out []string
	for _, s := range stmts {
		switch {
		case reTxnControl.MatchString(s):
			continue
		case reTxnRollback.MatchString(s), reNoTxnBlock.MatchString(s):
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// provedUndo runs stmts in one transaction on conn and commits only when
// the catalog read inside it equals t.Pre's and no user table's rows
// changed in a way the undo may not change them; otherwise it rolls back
// and says why. rows is what the rows say of the undo that committed:
// unproven and left are not the undo's doing, so they do not roll it back.
func (e *Env) provedUndo(ctx context.Context, conn *sql.Conn, stmts []string, t *Target, bu map[string]RowSum) (ran []string, why []string, rows rowVerdict) {
	begin, _ := e.ownSQL("begin")
	commit, _ := e.ownSQL("commit")
	rollback, _ := e.ownSQL("rollback")
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return nil, []string{"BEGIN: " + err.Error()}, rows
	}
	sess := e.Session(conn)
	for _, s := range stmts {
		if err := sess.Exec(ctx, s); err != nil {
			conn.ExecContext(ctx, rollback)
			return nil, []string{fmt.Sprintf("%s failed (%v): rolled back, nothing of it stays", Short(s), err)}, rows
		}
		ran = append(ran, Short(s))
	}
	after, err := ReadCatalog(ctx, conn, e.Server)
	if err != nil {
		conn.ExecContext(ctx, rollback)
		return nil, []string{"the catalog could not be read inside the undo's transaction (" + err.Error() + "): rolled back"}, rows
	}
	added, removed := t.Pre.Cat.Diff(after)
	for _, a := range removed {
		why = append(why, "it would destroy what was there before the migration: "+a)
	}
	for _, a := range added {
		why = append(why, "it would leave what the migration created: "+a)
	}
	au := e.RowSums(ctx, conn, t.Tabs)
	rows = rowsAfterUndo(t, bu, au)
	why = append(why, rows.changed...)
	if len(why) > 0 {
		conn.ExecContext(ctx, rollback)
		return nil, append([]string{fmt.Sprintf("the undo (%s) ran inside a transaction that was rolled back: the database it would have left is not the one before the migration", strings.Join(ran, "; "))}, why...), rowVerdict{}
	}
	if _, err := conn.ExecContext(ctx, commit); err != nil {
		return nil, []string{"COMMIT: " + err.Error()}, rowVerdict{}
	}
	return ran, nil, rows
}

// staticRefusal holds undo statements, before any runs, to what the
// migration changed, on a server whose DDL commits at once: a statement
// that drops, empties or renames a table there before the migration, or
// writes rows of one whose rows the migration did not change, is refused.
func (e *Env) staticRefusal(stmts []string, t *Target) []string {
	if !e.traits().DDLCommitsAtOnce() {
		return nil
	}
	existed := func(key string) bool {
		schema, name, _ := strings.Cut(key, ".")
		if schema == "" {
			schema = e.Server.Database
		}
		for _, l := range t.Pre.Cat {
			if rest, ok := strings.CutPrefix(l, "table "); ok {
				if n, _, _ := strings.Cut(rest, " "); strings.EqualFold(n, schema+"."+name) {
					return true
				}
			}
		}
		return false
	}
	rowsChanged := func(key string) bool {
		schema, name, _ := strings.Cut(key, ".")
		if schema == "" {
			schema = e.Server.Database
		}
		k := schema + "." + name
		return t.Pre.Rows[k] != t.Post.Rows[k]
	}
	var out []string
	for _, s := range stmts {
		dropped, written, known := sqlparse.Destroys(e.Server.Dialect, sqlparse.Statement{Text: s})
		if !known {
			out = append(out, fmt.Sprintf("%s: check cannot tell which tables it changes, and %s has no transactional DDL to prove it afterwards", Short(s), e.Server.Dialect))
			continue
		}
		for _, d := range dropped {
			if existed(d) {
				out = append(out, fmt.Sprintf("%s: it would drop or empty %s, which existed before the migration (with its rows)", Short(s), strings.TrimPrefix(d, ".")))
			}
		}
		if written != "" && existed(written) && !rowsChanged(written) {
			out = append(out, fmt.Sprintf("%s: it would change rows of %s, which the migration did not change", Short(s), strings.TrimPrefix(written, ".")))
		}
	}
	return out
}
