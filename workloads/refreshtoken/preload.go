package refreshtoken

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

// A production table holds every user's live session, the benchmark's
// starts empty: --preload N loads N live sessions before the window opens
// (in Prepare, before the window's CHECKPOINT and before snapshot, so
// their log is not counted), with the workload's own insert statements.
// Their last refreshes are spread evenly over the max-idle horizon before
// the scenario starts (an offline one's, --offline-percent of them, over the
// offline idle horizon), so none has expired when it starts and the
// expiration job finds them expiring at a steady rate after; CREATED_ON goes
// back up to half the max lifespan before that.

// preloadChunk is the rows loaded per transaction.
const preloadChunk = 500

// preloadSessions are the preloaded rows, deterministic by the seed: ids
// from the plan's generator after the logins' (another PCG stream each).
func (w *Workload) preloadSessions() []liveSession {
	n := w.P.Preload
	if n == 0 {
		return nil
	}
	plan := w.ensurePlan()
	half := max(int64(w.P.MaxLifespan/time.Second)/2, 1)
	// The same share as the logins' is offline; each kind is spread over
	// its own idle horizon, so both kinds expire at a steady rate.
	off := choose(n, w.P.OfflinePercent, w.P.Seed, preloadOfflineStream)
	isOff := func(i int) bool { return off != nil && off[i] }
	var count, rank [2]int64
	for i := 0; i < n; i++ {
		count[b2i(isOff(i))]++
	}
	out := make([]liveSession, n)
	for i := range out {
		o := isOff(i)
		k := rank[b2i(o)]
		rank[b2i(o)]++
		idle := w.P.idleSeconds(o)
		last := Epoch - 1 - k*(idle-1)/count[b2i(o)]
		id := plan.sessionSID(w.P.Logins + i)
		out[i] = liveSession{id: id, lastRefresh: last, createdOn: last - (k*7919)%half, bucket: int32(w.P.bucket(id.String())), offline: o}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// loadPreload inserts the preloaded sessions on Prepare's connection.
func (w *Workload) loadPreload(ctx context.Context, conn *sql.Conn) error {
	rows := w.preloadSessions()
	if len(rows) == 0 {
		return nil
	}
	t, err := w.prepareTexts()
	if err != nil {
		return err
	}
	var pipe dialects.Pipeliner
	if p, ok := w.target.Dialect.(dialects.Pipeliner); ok {
		pipe = p
	}
	for start := 0; start < len(rows); start += preloadChunk {
		var list []dialects.Stmt
		for _, s := range rows[start:min(start+preloadChunk, len(rows))] {
			id := s.id.String()
			user, flag := fmt.Sprintf("preload-%s", id[:8]), flagFor(s.offline)
			args := []any{id, user, realmID, s.createdOn, flag, userSessionData(id, user, s.createdOn), s.lastRefresh, false}
			if w.baseVariant() == "coarse" {
				args = append(args, int(s.bucket), Coarse(s.lastRefresh, s.createdOn, w.P.granularity(s.offline)))
			}
			list = append(list, dialects.Stmt{SQL: t["rt_insert_user_session"], Args: args},
				dialects.Stmt{SQL: t["rt_insert_client_session"], Args: []any{id, clientID, flag, s.lastRefresh, clientSessionData(clientID, s.createdOn), realmID}})
		}
		var err error
		if pipe != nil {
			_, err = pipe.Pipeline(ctx, conn, list)
		} else {
			_, err = dialects.ExecTx(ctx, conn, list)
		}
		if err != nil {
			return fmt.Errorf("--preload: load sessions %d-%d: %w", start, start+len(list)/2, err)
		}
	}
	return nil
}
