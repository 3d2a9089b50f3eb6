package restore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// PendingUndos lists the records of migrations a check applied and did not
// undo (killed with -9, a crash, a lost server), for clean and doctor. With
// finish, and no check running on the database (its check lock is free),
// each is undone with the same proof as a check's own undo (PostgreSQL: in
// one transaction that commits only when the catalog is the recorded one;
// otherwise the undo the catalog difference proves) and its record dropped;
// one that cannot be proved stays, and says why.
func PendingUndos(ctx context.Context, db *sql.DB, s dialects.Server, finish bool) ([]string, error) {
	markers, err := undoMarkers(ctx, db, s)
	if err != nil || len(markers) == 0 {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	free := false
	if lock, err := queries.Get(s.Dialect, "check_lock", s.VersionNum); err == nil {
		free, _, _ = dialects.CheckOf(s.Dialect).TakeLock(ctx, conn, lock, 0)
	}
	var out []string
	if !free {
		for _, m := range markers {
			out = append(out, fmt.Sprintf("in use     %s  a check is running on this database (it holds the check lock); never touched", m))
		}
		return out, nil
	}
	defer func() {
		if unlock, err := queries.Get(s.Dialect, "check_unlock", s.VersionNum); err == nil {
			conn.ExecContext(context.WithoutCancel(ctx), unlock)
		}
	}()
	out, _, err = finishPending(ctx, db, conn, s, markers, finish)
	return out, err
}

// finishPending reports, and with finish undoes, the records markers on
// conn, which holds the database's check lock. left is how many stay
// (their undo could not be proved, their record not read or dropped).
func finishPending(ctx context.Context, db *sql.DB, conn *sql.Conn, s dialects.Server, markers []string, finish bool) (out []string, left int, err error) {
	e := &Env{Server: s, DB: db, LockTimeout: DefaultLockTimeout}
	for _, m := range markers {
		meta, undo, pre, whole, err := readMarker(ctx, conn, s, m)
		if err != nil {
			out = append(out, fmt.Sprintf("pending    %s  its record cannot be read: %v", m, err))
			left++
			continue
		}
		var line string
		var now Catalog
		applied := false
		if whole {
			if now, err = ReadCatalog(ctx, conn, s); err != nil {
				return out, left + 1, err
			}
			added, removed := pre.Diff(now)
			applied = len(added) > 0 || len(removed) > 0
			line = fmt.Sprintf("pending    %s  %s; the migration is applied: %d definitions added and %d changed or removed since before it; its undo: %s",
				m, meta, len(added), len(removed), strings.Join(undo, "; "))
			if !applied {
				line = fmt.Sprintf("pending    %s  %s; the catalog is as recorded before the migration (the migration is not applied)", m, meta)
			}
		} else {
			// Torn while being written (kill -9, a lost server): its check
			// applies nothing before the record is whole, so there is
			// nothing to undo, only the record to drop.
			line = fmt.Sprintf("pending    %s  %s; its record is incomplete: that check was stopped before it applied its migration, there is nothing to undo", m, meta)
		}
		if !finish {
			out = append(out, line)
			left++
			continue
		}
		if applied {
			t := &Target{Pre: Snapshot{Cat: pre}, Post: Snapshot{Cat: now}}
			r := &Restoration{}
			e.RunUndo(ctx, conn, RecordedUndo(undo), t, r, true)
			after, err := ReadCatalog(ctx, conn, s)
			if err != nil {
				return out, left + 1, err
			}
			if a, rm := pre.Diff(after); len(a) > 0 || len(rm) > 0 {
				out = append(out, line+fmt.Sprintf("; NOT finished: the undo could not be proved (%s): put it back by hand, then clean --drop drops the record", strings.Join(append(r.Refused, r.Failed...), "; ")))
				left++
				continue
			}
			line += "; undone (" + strings.Join(r.Ran, "; ") + "), the catalog is as recorded"
		}
		if text, err := sqlFor(s, "undo_marker_drop", m); err == nil {
			if _, err := conn.ExecContext(ctx, text); err != nil {
				out = append(out, line+"; the record could not be dropped: "+err.Error())
				left++
				continue
			}
		}
		out = append(out, line+"; record dropped")
	}
	return out, left, nil
}

// readMarker reads a record; whole is false when it lacks its last line
// (torn while being written).
func readMarker(ctx context.Context, conn *sql.Conn, s dialects.Server, m string) (meta string, undo []string, pre Catalog, whole bool, err error) {
	text, err := sqlFor(s, "undo_marker_read", m)
	if err != nil {
		return "", nil, nil, false, err
	}
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return "", nil, nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, line string
		if err := rows.Scan(&kind, &line); err != nil {
			return "", nil, nil, false, err
		}
		switch kind {
		case "meta":
			meta = line
		case "undo":
			undo = append(undo, line)
		case "pre":
			pre = append(pre, line)
		case markEnd:
			whole = true
		}
	}
	if meta == "" {
		meta = "(no record of which check)"
	}
	return meta, undo, pre, whole, rows.Err()
}
