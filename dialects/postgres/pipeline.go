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
func (Dialect) Pipeline(ctx context.Context, conn *sql.Conn, stmts []dialects.Stmt) ([]dialects.StmtResult, error) {
	if dialects.Sequenced(stmts) {
		// A statement's arguments come from an earlier one's rows: they
		// are not known when a batch would send it.
		return dialects.ExecTx(ctx, conn, stmts)
	}
	out := make([]dialects.StmtResult, len(stmts))
	err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: pipeline needs a pgx connection, got %T", dc)
		}
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.SQL, s.Args...)
		}
		br := sc.Conn().SendBatch(ctx, b)
		for i, s := range stmts {
			if s.Query {
				rows, err := br.Query()
				if err != nil {
					br.Close()
					return fmt.Errorf("statement %d: %w", i+1, err)
				}
				for rows.Next() {
					if out[i].RowsReturned == 0 && s.Dest != nil {
						if err := rows.Scan(s.Dest...); err != nil {
							rows.Close()
							br.Close()
							return fmt.Errorf("statement %d: %w", i+1, err)
						}
					}
					if s.Each != nil {
						if err := s.Each(rows.Scan); err != nil {
							rows.Close()
							br.Close()
							return fmt.Errorf("statement %d: %w", i+1, err)
						}
					}
					out[i].RowsReturned++
				}
				rows.Close()
				if err := rows.Err(); err != nil {
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
