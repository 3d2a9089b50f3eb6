package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgx takes one notice handler per pool configuration, fixed at connect;
// VACUUM (VERBOSE) tells what it did only in notices, on one connection
// for one statement. The handler Config installs routes each notice to
// whoever listens on the connection it arrived on, and drops it otherwise.
var (
	noticeMu  sync.Mutex
	listeners = map[*pgconn.PgConn]func(*pgconn.Notice){}
)

func routeNotice(c *pgconn.PgConn, n *pgconn.Notice) {
	noticeMu.Lock()
	f := listeners[c]
	noticeMu.Unlock()
	if f != nil {
		f(n)
	}
}

// WithNotices runs f on conn while every notice the server sends on it
// (INFO, DEBUG, NOTICE, WARNING) goes to on, in order. A connection not
// opened through Config delivers none: the caller must treat "no messages"
// as "not known", never as zero.
func WithNotices(ctx context.Context, conn *sql.Conn, on func(*pgconn.Notice), f func() error) error {
	var pc *pgconn.PgConn
	if err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: notices need a pgx connection, got %T", dc)
		}
		pc = sc.Conn().PgConn()
		return nil
	}); err != nil {
		return err
	}
	noticeMu.Lock()
	listeners[pc] = on
	noticeMu.Unlock()
	defer func() {
		noticeMu.Lock()
		delete(listeners, pc)
		noticeMu.Unlock()
	}()
	return f()
}
