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
func instrument(ctx context.Context, db *sql.DB, s *dialects.Server, timeout time.Duration, log io.Writer) (notes []string, undo func()) {
	undo = func() {}
	d, ok := dialects.Get(s.Dialect)
	if !ok {
		return nil, undo
	}
	ins, ok := d.(dialects.Instrumenter)
	if !ok {
		return nil, undo
	}
	restore, notes := ins.Instrument(ctx, db, s)
	for _, n := range notes {
		if log != nil {
			fmt.Fprintf(log, "note: %s\n", n) // what was created, found or will be removed
		}
	}
	if restore == nil {
		return notes, undo
	}
	return notes, func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		err := restore(cctx)
		switch {
		case err == nil || log == nil:
		case errors.Is(err, dialects.ErrInUse):
			fmt.Fprintf(log, "note: %v\n", err)
		default:
			fmt.Fprintf(log, "warning: %v\n", err)
		}
	}
}
