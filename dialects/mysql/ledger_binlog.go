package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Every statement writeamp sends to its ledger (writeamp_ledger: CREATE
// DATABASE, CREATE TABLE, INSERT, DELETE, DROP DATABASE) runs with the
// session's sql_log_bin off, so none of its lifecycle reaches the binary
// log and replicas never see any of it: a replica that saw the CREATE but
// not the DROP would keep a database its primary does not have, and a
// replica of a replica would be handed writeamp's bookkeeping too. SET
// GLOBAL innodb_monitor_* and GET_LOCK are not binlogged at all.

// ledgerSession is a connection's binary logging turned off for the ledger.
type ledgerSession struct {
	conn *sql.Conn
	// off: sql_log_bin is 0 on conn and restore must put it back.
	off bool
	// logged says why the ledger's statements go to the binary log ("" when
	// they do not: binary logging off, or sql_log_bin turned off).
	logged string
	v      int
}

// offBinlog turns sql_log_bin off on conn when binary logging is on; a
// login that may not (BINLOG ADMIN / SUPER) leaves it on, and logged says
// so.
func offBinlog(ctx context.Context, conn *sql.Conn, s dialects.Server) *ledgerSession {
	ls := &ledgerSession{conn: conn, v: s.VersionNum}
	if !s.Has(CapBinlog) {
		return ls
	}
	stmt, err := queries.Get(Name, "ledger_off_binlog", s.VersionNum)
	if err == nil {
		_, err = conn.ExecContext(ctx, stmt)
	}
	if err != nil {
		ls.logged = "writeamp_ledger's statements go to the binary log and replicate to every replica (SET SESSION sql_log_bin = 0 refused: " + err.Error() +
			"; BINLOG ADMIN or SUPER on MariaDB, SYSTEM_VARIABLES_ADMIN on MySQL keeps them off: GRANT BINLOG ADMIN ON *.* TO " + s.Prop(PropHostUser) + ")"
		return ls
	}
	ls.off = true
	return ls
}

// restore puts sql_log_bin back before the connection returns to the pool:
// a pooled session left with it off would keep a later statement of the
// workload off the binary log, and its replicas would diverge. When that
// fails the connection is discarded instead of reused.
func (ls *ledgerSession) restore(ctx context.Context) {
	if !ls.off {
		return
	}
	ls.off = false
	stmt, err := queries.Get(Name, "ledger_on_binlog", ls.v)
	if err == nil {
		_, err = ls.conn.ExecContext(context.WithoutCancel(ctx), stmt)
	}
	if err != nil {
		ls.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// binlogBytes reads Binlog_bytes_written (-1 when it cannot).
func binlogBytes(ctx context.Context, conn *sql.Conn, v int) float64 {
	stmt, err := queries.Get(Name, "binlog_bytes_written", v)
	if err != nil {
		return -1
	}
	var name string
	var n float64
	if conn.QueryRowContext(ctx, stmt).Scan(&name, &n) != nil {
		return -1
	}
	return n
}

// loggedNote is the note of ledger statements that went to the binary log,
// with their bytes when the server counts them (server-wide: another
// session's writes in between are included, so approx).
func (ls *ledgerSession) loggedNote(before, after float64) string {
	if ls.logged == "" {
		return ""
	}
	if before >= 0 && after >= before {
		return fmt.Sprintf("%s: about %.0f bytes of binlog (Binlog_bytes_written around them, whole server, approx)", ls.logged, after-before)
	}
	return ls.logged
}
