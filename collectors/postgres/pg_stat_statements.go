package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
)

// PgStatStatements reads pg_stat_statements per entry, so a window says
// which statements wrote its WAL. It only reads: the extension must be
// loaded (shared_preload_libraries) and created in the database; where it is
// not, the snapshot records why and the fix, and the rest goes on.
type PgStatStatements struct{}

func (PgStatStatements) Name() string { return "pg_stat_statements" }

func (PgStatStatements) Supports(s dialects.Server) error {
	if s.VersionNum < 130000 {
		return fmt.Errorf("%w: pg_stat_statements has per-statement WAL counters from PostgreSQL 13", dialects.ErrUnsupported)
	}
	return nil
}

// StatementsFix is how a database gets pg_stat_statements (doctor prints it).
const StatementsFix = "add pg_stat_statements to shared_preload_libraries (ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements', keeping any already listed; needs a restart), then in this database as a superuser: CREATE EXTENSION pg_stat_statements (or let writeamp run/measure --create-pg-stat-statements create it for the run and drop it afterwards)"

// extVersion turns "1.10" into 11000, the number the query blocks are gated on.
func extVersion(v string) (int, error) {
	maj, min, ok := strings.Cut(v, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pg_stat_statements: unrecognised extension version %q", v)
	}
	return a*10000 + b*100, nil
}

func (PgStatStatements) Statements(ctx context.Context, qr dialects.Querier, s dialects.Server) (*collectors.Statements, error) {
	var schema, version string
	err := queries.QueryRow(ctx, qr, pg.Name, "pg_stat_statements_ext", s.VersionNum).Scan(&schema, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: the pg_stat_statements extension is not created in database %s, so per-statement costs are not read (fix: %s)", dialects.ErrUnsupported, s.Database, StatementsFix)
	}
	if err != nil {
		return nil, err
	}
	ev, err := extVersion(version)
	if err != nil {
		return nil, err
	}
	if ev < 10800 {
		return nil, fmt.Errorf("%w: pg_stat_statements %s has no WAL columns (fix: ALTER EXTENSION pg_stat_statements UPDATE)", dialects.ErrUnsupported, version)
	}
	sch := pg.QuoteIdent(schema)
	text, _ := queries.Get(pg.Name, "pg_stat_statements", ev)
	rows, err := qr.QueryContext(ctx, strings.ReplaceAll(text, "{{schema}}", sch))
	if err != nil {
		if strings.Contains(err.Error(), "shared_preload_libraries") {
			return nil, fmt.Errorf("%w: pg_stat_statements is created but not loaded (fix: %s)", dialects.ErrUnsupported, StatementsFix)
		}
		return nil, err
	}
	defer rows.Close()
	writeCol := "blk_write_time"
	if ev >= 11100 {
		writeCol = "shared_blk_write_time"
	}
	st := &collectors.Statements{
		View: "pg_stat_statements",
		Sources: map[string]string{"calls": "calls", "rows": "rows", "exec_ms": "total_exec_time",
			"log_bytes": "wal_bytes", "log_records": "wal_records", "fpi_count": "wal_fpi",
			"blocks_dirtied": "shared_blks_dirtied", "blocks_written": "shared_blks_written", "write_ms": writeCol},
		Merge: "entries are per queryid, user and top-level flag: statements that differ only in constants share one, with the first text seen",
	}
	for rows.Next() {
		var r collectors.StatementRow
		var calls, nrows, exec, wb, wr, fpi, dirt, wrt, wt float64
		if err := rows.Scan(&r.Key, &r.Text, &r.Since, &calls, &nrows, &exec, &wb, &wr, &fpi, &dirt, &wrt, &wt); err != nil {
			return nil, err
		}
		r.Values = map[string]float64{"calls": calls, "rows": nrows, "exec_ms": exec, "log_bytes": wb, "log_records": wr,
			"fpi_count": fpi, "blocks_dirtied": dirt, "blocks_written": wrt, "write_ms": wt}
		st.Rows = append(st.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if info, err := queries.Get(pg.Name, "pg_stat_statements_info", ev); err == nil {
		var dealloc float64
		var reset string
		if err := qr.QueryRowContext(ctx, strings.ReplaceAll(info, "{{schema}}", sch)).Scan(&dealloc, &reset); err != nil {
			return nil, fmt.Errorf("pg_stat_statements_info: %w", err)
		}
		st.Evictions, st.Reset = &dealloc, reset
	}
	return st, nil
}
