package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
)

// Pipeline sends the statements as one pgx batch: one round trip, and one
// implicit transaction (the extended protocol runs everything before Sync
// as a single transaction, committed at Sync, rolled back on any error).
// A list whose statement depends on an earlier one's rows runs one
// statement at a time in a pgx transaction (sequenced).
func (Dialect) Pipeline(ctx context.Context, conn *sql.Conn, stmts []dialects.Stmt) ([]dialects.StmtResult, error) {
	out := make([]dialects.StmtResult, len(stmts))
	err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: pipeline needs a pgx connection, got %T", dc)
		}
		if dialects.Sequenced(stmts) {
			return sequenced(ctx, sc.Conn(), stmts, out)
		}
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.SQL, s.Args...)
		}
		br := sc.Conn().SendBatch(ctx, b)
		for i, s := range stmts {
			if s.Query {
				rows, err := br.Query()
				if err == nil {
					out[i].RowsReturned, err = readRows(rows, s)
				}
				if err != nil {
					br.Close()
					return fmt.Errorf("statement %d: %w", i+1, err)
				}
				continue
			}
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return fmt.Errorf("statement %d: %w", i+1, err)
			}
			out[i].RowsAffected = tag.RowsAffected()
		}
		return br.Close()
	})
	return out, err
}

// sequenced runs the statements one at a time in a transaction on pgx
// itself: a database/sql transaction and each of its queries start a
// goroutine that watches the context, and waking them cost the expiration
// job's batches a scheduler hand-off each.
func sequenced(ctx context.Context, c *pgx.Conn, stmts []dialects.Stmt, out []dialects.StmtResult) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	// A cancelled context must still roll back: rolling back with it
	// would close the connection instead.
	defer tx.Rollback(context.WithoutCancel(ctx))
	for i, s := range stmts {
		if s.Late != nil {
			if s.SQL, s.Args, err = s.Late(); err != nil {
				return fmt.Errorf("statement %d: %w", i+1, err)
			}
		}
		if s.Query {
			rows, err := tx.Query(ctx, s.SQL, s.Args...)
			if err == nil {
				out[i].RowsReturned, err = readRows(rows, s)
			}
			if err != nil {
				return fmt.Errorf("statement %d: %w", i+1, err)
			}
			continue
		}
		tag, err := tx.Exec(ctx, s.SQL, s.Args...)
		if err != nil {
			return fmt.Errorf("statement %d: %w", i+1, err)
		}
		out[i].RowsAffected = tag.RowsAffected()
	}
	return tx.Commit(ctx)
}

// readRows counts a query's rows, scanning the first into s.Dest and
// giving each to s.Each, and closes them.
func readRows(rows pgx.Rows, s dialects.Stmt) (int64, error) {
	defer rows.Close()
	var n int64
	for rows.Next() {
		if n == 0 && s.Dest != nil {
			if err := rows.Scan(s.Dest...); err != nil {
				return n, err
			}
		}
		if s.Each != nil {
			if err := s.Each(rows.Scan); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, rows.Err() // Next returning false closed them
}
