package dialects

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PingWithin checks the server answers, giving up at limit (every dialect
// passes its ConnectTimeout, the README's 10 s, with no slack) even when the
// driver does not honour the context (go-ora reads the handshake with its own
// 10-minute deadline; a login stuck on a half-open port must not hold the
// command). On failure the pool is closed.
func PingWithin(ctx context.Context, db *sql.DB, limit time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- db.PingContext(pctx) }()
	select {
	case err := <-done:
		if err != nil {
			db.Close()
		}
		return err
	case <-pctx.Done():
		go db.Close()
		return fmt.Errorf("no answer within %s", limit)
	}
}
