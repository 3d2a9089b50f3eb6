package refreshtoken

import (
	"testing"
	"time"
)

// lastWritten is, by hand from the schedule's times, the last second a
// session of plan i wrote to LAST_SESSION_REFRESH and whether it logged out.
func lastWritten(p Params, plan *Plan, i int) int64 {
	at := int64(i) * int64(1000/p.UsersPerSecond)
	last := Epoch + at/1000
	for k := 0; k < p.RefreshesPerLogin; k++ {
		last = max(last, Epoch+(at+p.FirstRefreshAfter.Milliseconds()+int64(k)*p.RefreshPeriod.Milliseconds())/1000)
	}
	return last
}

// The job deletes an offline session at the first run (on the interval's
// grid after the scenario) past its last refresh + the offline idle timeout
// + 180 s, a regular one past max idle + 180 s, each in a batch of its own
// flag; the runs it leaves out are only ones with nothing to do.
func TestExpirationJobDeletesOfflineSessionsAfterTheirCutoff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		variant, walk string
		offIdle       time.Duration
	}{{"baseline", "", 2 * time.Hour}, {"coarse", "per-bucket", 2 * time.Hour}, {"coarse", "all-buckets", 5 * time.Hour}, {"coarse", "per-bucket", DefaultOfflineMaxIdle}} {
		p := DefaultParams()
		p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.Preload, p.ExpirationBatch = 300, 5, time.Minute, 400, 40
		p.OfflinePercent, p.OfflineMaxIdle = 50, c.offIdle
		if c.walk != "" {
			p.CoarseExpiration = c.walk
		}
		w := New(p)
		w.variant = c.variant
		plan := w.ensurePlan()
		live, end := w.liveAtEnd()
		jp := w.planJob(live, end)
		type del struct {
			at   int64
			flag string
		}
		got := map[string]del{}
		for _, b := range jp.batches {
			for _, k := range b.ids {
				id := k.String()
				if _, dup := got[id]; dup {
					t.Fatalf("%+v: %s deleted twice", c, id)
				}
				got[id] = del{b.at, b.flag}
			}
		}
		// Independently: every session left and when it is due.
		type want struct {
			last    int64
			offline bool
		}
		left := map[string]want{}
		for i := 0; i < p.Logins; i++ {
			if !plan.logouts[i] {
				left[plan.sessionID(i)] = want{lastWritten(p, plan, i), plan.isOffline(i)}
			}
		}
		offPre := 0
		for _, s := range w.preloadSessions() {
			left[s.id.String()] = want{s.lastRefresh, s.offline}
			if s.offline {
				offPre++
			}
		}
		if offPre != 200 {
			t.Fatalf("%+v: %d of 400 preloaded sessions offline, want 200", c, offPre)
		}
		if len(got) != len(left) || jp.deleted != len(left) {
			t.Fatalf("%+v: the job deleted %d sessions, %d were left", c, len(got), len(left))
		}
		interval := int64(p.ExpirationInterval.Seconds())
		endSec := Epoch + int64(p.Logins-1)*200/1000 + int64(p.RefreshesPerLogin)*int64(p.RefreshPeriod.Seconds())
		offline := 0
		for id, s := range left {
			d := got[id]
			idle, flag := int64(p.MaxIdle.Seconds()), regularFlag
			if s.offline {
				idle, flag = int64(p.OfflineMaxIdle.Seconds()), offlineFlag
				offline++
			}
			// The first tick after the scenario at which it is past the cut-off.
			k := (endSec-Epoch)/interval + 1
			for Epoch+k*interval-idle-cleanerWindow <= s.last {
				k++
			}
			if d.at != Epoch+k*interval || d.flag != flag {
				t.Fatalf("%+v: session %s (offline %v, last refresh %d) deleted at %d by a '%s' batch, want %d by '%s'", c, id, s.offline, s.last, d.at, d.flag, Epoch+k*interval, flag)
			}
		}
		if offline <= 200 || offline >= len(left) {
			t.Fatalf("%+v: %d of %d sessions left are offline (200 preloaded)", c, offline, len(left))
		}
		// A run left out has nothing to do, so the runs issued are each a
		// tick of the grid; with 30 days of offline idle nearly all are
		// left out.
		first := (endSec-Epoch)/interval + 1
		lastRun := jp.batches[len(jp.batches)-1].at
		if span := (lastRun-Epoch)/interval - first + 1; int64(jp.runs)+jp.skipped != span {
			t.Errorf("%+v: %d runs issued + %d left out, the grid has %d ticks up to the last run", c, jp.runs, jp.skipped, span)
		}
		t.Logf("%+v: %d sessions deleted (%d offline) in %d runs issued, %d left out, %d batches", c, len(got), offline, jp.runs, jp.skipped, len(jp.batches))
		if c.offIdle == DefaultOfflineMaxIdle && (jp.skipped < 2500 || jp.runs > 500) {
			t.Errorf("30-day offline idle: %d runs issued, %d left out", jp.runs, jp.skipped)
		}
	}
}
