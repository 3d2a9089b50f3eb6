package dialects

import (
	"context"
	"database/sql"
	"fmt"
)

// Stmt is one statement of a workload operation.
type Stmt struct {
	SQL   string
	Args  []any
	Query bool // returns rows (counted, not kept)
	// Dest, for a query, receives its first row's columns.
	Dest []any
	// Each, for a query, is given every row it returns (after Dest took the
	// first), so a later statement of the transaction can depend on what it
	// read; an error fails the transaction, rolled back.
	Each func(scan func(dest ...any) error) error
	// Late, when set, gives the statement's text and arguments just before it
	// runs, after every statement before it ran and returned its rows: the
	// expiration job deletes the ids its find returned, not the ones it
	// expected. An error stops the transaction before the statement, rolled
	// back. A list with such a statement cannot be pipelined (its arguments
	// are not known when the others are sent): Pipeliners run it one statement
	// at a time in a transaction (ExecTx, or the driver's own transaction).
	Late func() (sql string, args []any, err error)
}

// Sequenced says whether a list has a statement that depends on what an
// earlier one returned (Late), and so must run one statement at a time.
func Sequenced(stmts []Stmt) bool {
	for _, s := range stmts {
		if s.Late != nil {
			return true
		}
	}
	return false
}

// StmtResult is what one statement did.
type StmtResult struct {
	RowsAffected int64
	RowsReturned int64
}

// Pipeliner is implemented by dialects that can send all statements of one
// transaction in a single round trip. The server runs the same statements in
// the same order in one transaction; only the client stops waiting between
// them, so the driver does not become the bottleneck of a measurement.
type Pipeliner interface {
	Pipeline(ctx context.Context, conn *sql.Conn, stmts []Stmt) ([]StmtResult, error)
}

// KernelWaiter is implemented by dialects whose connections, opened with
// KernelWait(true), wait for the server in the kernel (internal/kernelwait):
// run and check then plan their Ps for it.
type KernelWaiter interface {
	KernelWait()
}

// StatementsCreator is implemented by dialects whose per-statement view is
// an object writeamp may create for a run when the user consents
// (PostgreSQL's pg_stat_statements extension): the undo drops only what it
// created.
type StatementsCreator interface {
	CreateStatements(ctx context.Context, db *sql.DB, s Server) (undo func(context.Context) error, note string, err error)
}

// XactIDReader is implemented by dialects whose transactions can name their
// own id, the one the log's records carry, from inside the transaction: a
// query appended to an operation's statements (in the same round trip where
// they are pipelined) that neither assigns an id nor writes, so the log of a
// window can be split by the built-in workload's operations.
type XactIDReader interface {
	// XactIDStmt is the query; its one column is the id as a number (NULL
	// when the transaction wrote nothing).
	XactIDStmt(s Server) (string, error)
}

// ExecTx runs the statements one by one in a transaction: the fallback for
// dialects without pipelining.
func ExecTx(ctx context.Context, conn *sql.Conn, stmts []Stmt) ([]StmtResult, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := make([]StmtResult, len(stmts))
	for i, s := range stmts {
		if s.Late != nil {
			if s.SQL, s.Args, err = s.Late(); err != nil {
				return out, fmt.Errorf("statement %d: %w", i+1, err)
			}
		}
		if s.Query {
			rows, err := tx.QueryContext(ctx, s.SQL, s.Args...)
			if err != nil {
				return out, fmt.Errorf("statement %d: %w", i+1, err)
			}
			for rows.Next() {
				if out[i].RowsReturned == 0 && s.Dest != nil {
					if err := rows.Scan(s.Dest...); err != nil {
						rows.Close()
						return out, fmt.Errorf("statement %d: %w", i+1, err)
					}
				}
				if s.Each != nil {
					if err := s.Each(rows.Scan); err != nil {
						rows.Close()
						return out, fmt.Errorf("statement %d: %w", i+1, err)
					}
				}
				out[i].RowsReturned++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return out, fmt.Errorf("statement %d: %w", i+1, err)
			}
			continue
		}
		res, err := tx.ExecContext(ctx, s.SQL, s.Args...)
		if err != nil {
			return out, fmt.Errorf("statement %d: %w", i+1, err)
		}
		if out[i].RowsAffected, err = res.RowsAffected(); err != nil {
			return out, err
		}
	}
	return out, tx.Commit()
}
