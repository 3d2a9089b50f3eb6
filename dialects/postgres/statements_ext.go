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

// pg_stat_statements is created only when the user asks
// (--create-pg-stat-statements): unlike pg_walinspect, nothing needs it to
// measure, and a database that lacks it has chosen so. Where the server
// preloads the library but the database lacks the extension, writeamp
// creates it marked as its own (the comment), holds it shared while the run
// reads it, and the last writeamp run out drops it; one the database had is
// never touched. Its counters are the server's shared memory, so dropping
// the view loses nothing.

func statementsLedger(ctx context.Context, c dialects.Querier, v int) (loaded, installed bool, ours string, err error) {
	text, err := queries.Get(Name, "statements_ledger", v)
	if err != nil {
		return false, false, "", err
	}
	var comment string
	if err := c.QueryRowContext(ctx, text).Scan(&loaded, &installed, &comment); err != nil {
		return false, false, "", err
	}
	if strings.HasPrefix(comment, ledgerTag) {
		ours = strings.TrimPrefix(comment, "writeamp: ")
	}
	return loaded, installed, ours, nil
}

// CreateStatements makes pg_stat_statements readable for the run where the
// user consented: it returns the undo (nil when nothing was created or
// joined) and what was done or why not.
func (Dialect) CreateStatements(ctx context.Context, db *sql.DB, s dialects.Server) (func(context.Context) error, string, error) {
	v := s.VersionNum
	if s.Has(CapStandby) {
		return nil, "", fmt.Errorf("%w: a standby cannot create pg_stat_statements (create it on the primary)", dialects.ErrUnsupported)
	}
	loaded, installed, ours, err := statementsLedger(ctx, db, v)
	switch {
	case err != nil:
		return nil, "", err
	case !loaded:
		return nil, "", fmt.Errorf("%w: pg_stat_statements is not in shared_preload_libraries, and loading it needs a restart writeamp does not do (%s)", dialects.ErrUnsupported, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements', keeping any already listed, then restart")
	case installed && ours == "":
		return nil, "pg_stat_statements is the database's own: read as it is, never dropped", nil
	case !installed && !s.Has("superuser"):
		return nil, "", fmt.Errorf("%w: %s may not create pg_stat_statements (as a superuser: CREATE EXTENSION pg_stat_statements)", dialects.ErrUnsupported, s.User)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	must := func(name string) string { t, _ := queries.Get(Name, name, v); return t }
	undo := func(ctx context.Context) error {
		defer conn.Close()
		defer conn.ExecContext(context.WithoutCancel(ctx), must("walinspect_unlock"))
		sole := false
		if err := conn.QueryRowContext(ctx, must("statements_sole")).Scan(&sole); err != nil {
			return fmt.Errorf("postgres: pg_stat_statements not dropped: %w", err)
		}
		if !sole {
			return fmt.Errorf("pg_stat_statements stays: another writeamp run is using it and drops it when it ends: %w", dialects.ErrInUse)
		}
		_, installed, now, err := statementsLedger(ctx, conn, v)
		if err != nil || !installed || now == "" {
			return err // gone, or no longer writeamp's
		}
		if _, err := conn.ExecContext(ctx, must("drop_statements")); err != nil {
			return fmt.Errorf("postgres: drop the pg_stat_statements extension writeamp created (%s): %w", now, err)
		}
		return nil
	}
	if _, err := conn.ExecContext(ctx, must("statements_share")); err != nil {
		conn.Close()
		return nil, "", err
	}
	if installed {
		return undo, "pg_stat_statements was created by writeamp (" + ours + "); the last writeamp run using it drops it", nil
	}
	created, err := createStatements(ctx, conn, v)
	if err != nil {
		return nil, "", errors.Join(fmt.Errorf("postgres: CREATE EXTENSION pg_stat_statements: %w", err), undo(ctx))
	}
	return undo, "pg_stat_statements was created for the measurement (" + created + ", --create-pg-stat-statements); the last writeamp run using it drops it", nil
}

func createStatements(ctx context.Context, conn *sql.Conn, v int) (string, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	must := func(name string) string { t, _ := queries.Get(Name, name, v); return t }
	if _, err := tx.ExecContext(ctx, must("statements_create_lock")); err != nil {
		return "", err
	}
	if _, installed, ours, err := statementsLedger(ctx, tx, v); err != nil || installed {
		return ours, err // another run created it while this one waited
	}
	host, _ := os.Hostname()
	ours := fmt.Sprintf("created by writeamp (pid %d on %s) at %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	mark := strings.ReplaceAll(must("statements_mark"), "{{comment}}", QuoteLiteral("writeamp: "+ours))
	for _, stmt := range []string{must("create_statements"), mark} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return "", err
		}
	}
	return ours, tx.Commit()
}
