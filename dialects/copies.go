package dialects

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AwaitCopies polls behind, which names the copies of a server (standbys,
// secondaries) that have not yet been sent or replayed the log written so
// far, until none is named or bound has passed, so a window's shipped
// figures include the workload's tail. A copy still behind at the bound is
// a warning saying what misses; a read that fails, or an interrupt, ends
// the wait silently: the collectors report what they cannot read.
func AwaitCopies(ctx context.Context, bound time.Duration, what, misses string, behind func(context.Context) ([]string, error)) []string {
	deadline := time.Now().Add(bound)
	for {
		late, err := behind(ctx)
		if err != nil || len(late) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			return []string{fmt.Sprintf("%s still behind %s after the workload: %s; %s", what, bound, strings.Join(late, ", "), misses)}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}
