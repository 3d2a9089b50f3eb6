package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// pg_walinspect is the one thing writeamp creates outside its own schemas.
// It records that it did in the extension's comment (what and when), and
// every run using such an extension holds the walinspect_share lock shared:
// the last run out drops it, a run that finds it left by a run that is gone
// (kill -9, a crash) uses it and drops it at the end, and a run never drops
// one another run is still reading, nor one writeamp did not create.

const ledgerTag = "writeamp: created by "

// walinspectLedger reads whether the extension is installed and, when
// writeamp created it, the comment saying so ("" otherwise).
func walinspectLedger(ctx context.Context, c dialects.Querier, v int) (installed bool, ours string, err error) {
	var comment string
	if err := queries.QueryRow(ctx, c, Name, "walinspect_ledger", v).Scan(&installed, &comment); err != nil {
		return false, "", err
	}
	if strings.HasPrefix(comment, ledgerTag) {
		ours = strings.TrimPrefix(comment, "writeamp: ")
	}
	return installed, ours, nil
}

// Instrument holds, for the whole run, the lock that tells other writeamp
// runs a window is open here (they then skip their CHECKPOINT, which would
// remove WAL this window still has to read), and makes pg_walinspect
// available where writeamp cannot read the WAL segments itself: it creates
// the extension when it is missing and this login may (marking it as
// writeamp's), or joins the runs using one writeamp created (and so drops one
// a killed run left, even when the decoder does the reading).
// The undo drops such an extension when this is the last run using it; one
// the database had before writeamp is never touched.
func (Dialect) Instrument(ctx context.Context, db *sql.DB, s *dialects.Server) (func(context.Context) error, []string) {
	v := s.VersionNum
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, []string{"cannot open a session to mark the window: " + err.Error()}
	}
	ours := ""
	undo := func(ctx context.Context) error {
		defer conn.Close()
		defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "walinspect_unlock", v)
		if ours == "" {
			return nil
		}
		return dropIfLast(ctx, conn, *s, ours)
	}
	if _, err := queries.Exec(ctx, conn, Name, "measuring_share", v); err != nil {
		undo(ctx)
		return nil, []string{"cannot mark the window for other writeamp runs: " + err.Error()}
	}
	s.SetProp(PropMeasuring, "held")
	if s.Has(CapStandby) || !supportsWalinspect(v) || !(s.Has(CapCreateWalinspect) || s.Has(CapWalinspect)) {
		return undo, nil
	}
	fail := func(what string, err error) (func(context.Context) error, []string) {
		return undo, []string{"pg_walinspect: " + what + ": " + err.Error()}
	}
	if _, err := queries.Exec(ctx, conn, Name, "walinspect_share", v); err != nil {
		return fail("take the shared lock of its users", err)
	}
	installed, found, err := walinspectLedger(ctx, conn, v)
	if err != nil {
		return fail("read whether writeamp created it", err)
	}
	var notes []string
	switch {
	case installed && found == "":
		return undo, nil // the database's own: used as it is, never dropped
	case !installed && s.Has(CapWALFiles):
		return undo, nil // writeamp decodes the segments itself: no extension needed
	case !installed && !s.Has("superuser"):
		s.Set(CapWalinspect, false, "pg_walinspect was dropped since the probe and "+s.User+" may not create it")
		return undo, []string{s.Why(CapWalinspect)}
	case !installed:
		created, err := createWalinspect(ctx, conn, *s)
		if err != nil {
			s.Set(CapWalinspect, false, "could not create pg_walinspect: "+err.Error())
			return fail("CREATE EXTENSION failed", err)
		}
		found = created
		notes = append(notes, "pg_walinspect was created for the measurement ("+found+"); the last writeamp run using it drops it")
	default:
		sole := false
		queries.QueryRow(ctx, conn, Name, "walinspect_sole", v).Scan(&sole)
		if sole {
			// Nobody else holds it: the run that created it is gone. Back to
			// a shared hold only.
			queries.Exec(ctx, conn, Name, "walinspect_unshare_sole", v)
			notes = append(notes, "pg_walinspect was left by a writeamp run that did not finish ("+found+"): this run uses it and drops it at the end")
		} else {
			notes = append(notes, "pg_walinspect was created by another writeamp run still using it ("+found+"); the last run using it drops it")
		}
	}
	ours = found
	s.Set(CapWalinspect, true, "")
	if schema := ""; queries.QueryRow(ctx, conn, Name, "walinspect_schema", v).Scan(&schema) == nil {
		s.SetProp(PropWalinspectSchema, schema)
	}
	return undo, notes
}

// createWalinspect creates the extension and records in its comment that
// writeamp did, in one transaction serialized with other runs doing the same.
func createWalinspect(ctx context.Context, conn *sql.Conn, s dialects.Server) (string, error) {
	v := s.VersionNum
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if _, err := queries.Exec(ctx, tx, Name, "walinspect_create_lock", v); err != nil {
		return "", err
	}
	installed, ours, err := walinspectLedger(ctx, tx, v)
	if err != nil {
		return "", err
	}
	if installed { // another run created it while this one waited
		return ours, tx.Commit()
	}
	host, _ := os.Hostname()
	ours = fmt.Sprintf("created by writeamp (pid %d on %s) at %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	comment := strings.NewReplacer("{{comment}}", QuoteLiteral("writeamp: "+ours))
	for _, name := range []string{"create_walinspect", "walinspect_mark"} {
		stmt, err := queries.Get(Name, name, v)
		if err != nil {
			return "", err
		}
		if _, err := tx.ExecContext(ctx, comment.Replace(stmt)); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	return ours, Dialect{}.EndSession(ctx, conn, s)
}

// ErrInUse is the undo's answer when another writeamp run still uses what it
// would have dropped: not a failure, the other run drops it.
var ErrInUse = dialects.ErrInUse

// dropIfLast drops a writeamp-created pg_walinspect when no other writeamp
// session holds the shared lock.
func dropIfLast(ctx context.Context, conn *sql.Conn, s dialects.Server, ours string) error {
	v := s.VersionNum
	sole := false
	if err := queries.QueryRow(ctx, conn, Name, "walinspect_sole", v).Scan(&sole); err != nil {
		return fmt.Errorf("postgres: pg_walinspect (%s) not dropped: %w", ours, err)
	}
	if !sole {
		return fmt.Errorf("pg_walinspect (%s) stays: another writeamp run is using it and drops it when it ends: %w", ours, ErrInUse)
	}
	installed, now, err := walinspectLedger(ctx, conn, v)
	if err != nil || !installed || now == "" {
		return err // already gone, or no longer writeamp's
	}
	if !s.Has("superuser") {
		return fmt.Errorf("postgres: pg_walinspect (%s) is writeamp's to drop, but %s may not: as a superuser, DROP EXTENSION pg_walinspect (or writeamp clean --drop)", now, s.User)
	}
	if _, err := queries.Exec(ctx, conn, Name, "drop_walinspect", v); err != nil {
		return fmt.Errorf("postgres: drop the pg_walinspect extension writeamp created (%s): %w", now, err)
	}
	return Dialect{}.EndSession(ctx, conn, s)
}

// Leftovers reports what writeamp left on the server that no run uses any
// more, and drops it when asked: the replication slots of snapshots never
// diffed (each keeps WAL on the server's disk), and a pg_walinspect writeamp
// created whose run was killed before its cleanup.
func (d Dialect) Leftovers(ctx context.Context, db *sql.DB, s dialects.Server, drop bool) ([]string, error) {
	out, err := slotLeftovers(ctx, db, s, drop)
	if err != nil {
		return out, err
	}
	more, err := d.walinspectLeftovers(ctx, db, s, drop)
	return append(out, more...), err
}

func slotLeftovers(ctx context.Context, db *sql.DB, s dialects.Server, drop bool) ([]string, error) {
	slots, err := Slots(ctx, db, s)
	if err != nil {
		return nil, nil // pg_replication_slots unreadable: nothing to say
	}
	var out []string
	for _, sl := range slots {
		what := fmt.Sprintf("replication slot %s (a snapshot's, keeping %d MB of WAL", sl.Name, sl.Retained>>20)
		if !sl.Created.IsZero() {
			what += fmt.Sprintf(", made %s ago", time.Since(sl.Created).Round(time.Minute))
		}
		switch {
		case sl.Active:
			out = append(out, what+"; in use)")
		default:
			// Between a snapshot and its diff nothing holds the slot, so
			// a window in progress cannot be told from a forgotten one:
			// only the user can say no diff will read it.
			out = append(out, what+"; waiting for its diff: diff --dsn with its snapshot drops it, or clean --slot "+sl.Name+" once no diff will read it)")
		}
	}
	return out, nil
}

func (Dialect) walinspectLeftovers(ctx context.Context, db *sql.DB, s dialects.Server, drop bool) ([]string, error) {
	v := s.VersionNum
	if !supportsWalinspect(v) {
		return nil, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "walinspect_unlock", v)
	installed, ours, err := walinspectLedger(ctx, conn, v)
	if err != nil || !installed || ours == "" {
		return nil, err
	}
	sole := false
	if err := queries.QueryRow(ctx, conn, Name, "walinspect_sole", v).Scan(&sole); err != nil {
		return nil, err
	}
	switch {
	case !sole:
		return []string{"extension pg_walinspect (in use: " + ours + ")"}, nil
	case !drop:
		return []string{"extension pg_walinspect (abandoned: " + ours + "; the run that created it did not finish)"}, nil
	}
	if err := dropIfLast(ctx, conn, s, ours); err != nil && !errors.Is(err, ErrInUse) {
		return nil, err
	}
	return []string{"extension pg_walinspect (abandoned: " + ours + "; dropped)"}, nil
}

// QuoteLiteral quotes a string for SQL (standard_conforming_strings, on
// since 9.1): COMMENT takes no parameters.
func QuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
