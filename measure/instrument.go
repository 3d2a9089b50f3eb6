package measure

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

// instrument turns on what the dialect can add for a measured window
// (PostgreSQL: pg_walinspect, MariaDB: the InnoDB index monitors) and updates
// s to say so. It returns the notes for the result and the undo, which the
// caller defers: the undo restores the server within timeout even when ctx
// was cancelled (Ctrl-C), and a failure to restore is written to log.
//
// With holdWAL, the log from now on is also kept on the server until undo
// (PostgreSQL: a temporary replication slot), so a window that outlives the
// server's WAL retention can still be read.
func instrument(ctx context.Context, db *sql.DB, s *dialects.Server, timeout time.Duration, log io.Writer, holdWAL bool) (notes []string, undo func()) {
	var restores []func(context.Context) error
	undo = func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		for i := len(restores) - 1; i >= 0; i-- {
			switch err := restores[i](cctx); {
			case err == nil || log == nil:
			case errors.Is(err, dialects.ErrInUse):
				fmt.Fprintf(log, "note: %v\n", err)
			default:
				fmt.Fprintf(log, "warning: %v\n", err)
			}
		}
	}
	d, ok := dialects.Get(s.Dialect)
	if !ok {
		return nil, undo
	}
	if ins, ok := d.(dialects.Instrumenter); ok {
		restore, n := ins.Instrument(ctx, db, s)
		notes = append(notes, n...)
		for _, note := range n {
			if log != nil {
				fmt.Fprintf(log, "note: %s\n", note) // what was created, found or will be removed
			}
		}
		if restore != nil {
			restores = append(restores, restore)
		}
	}
	if h, ok := d.(dialects.WALHolder); ok && holdWAL {
		release, err := h.HoldWAL(ctx, db, *s)
		switch {
		case err == nil:
			restores = append(restores, release)
		case errors.Is(err, dialects.ErrUnsupported):
			// Short windows need no slot; a long one that loses its start
			// says so when the log is read.
		default:
			notes = append(notes, err.Error())
		}
	}
	return notes, undo
}
