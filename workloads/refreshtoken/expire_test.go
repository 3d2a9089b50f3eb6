package refreshtoken_test

import (
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// crossingsByHand counts, per session and independently of the cursor, the
// distinct coarse values of the seconds a session's refreshes write (a
// refresh writes only a later second than the stored one), minus one.
func crossingsByHand(logins, refreshes int, periodMS, arrivalMS, firstMS, gran int64) int64 {
	var n int64
	for i := 0; i < logins; i++ {
		at := int64(i) * arrivalMS
		created := refreshtoken.Epoch + at/1000
		last, seen := created, map[int64]bool{refreshtoken.Coarse(created, created, gran): true}
		for k := 0; k < refreshes; k++ {
			sec := refreshtoken.Epoch + (at+firstMS+int64(k)*periodMS)/1000
			if sec > last {
				last = sec
				seen[refreshtoken.Coarse(sec, created, gran)] = true
			}
		}
		n += int64(len(seen) - 1)
	}
	return n
}

func TestCrossingsMatchAnIndependentCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		logins, refreshes int
		period, first     time.Duration
		idle              int64
	}{{1500, 10, 2 * time.Second, 0, 1800}, {300, 40, time.Minute, 0, 1800}, {200, 100, 7 * time.Second, 700 * time.Millisecond, 60}} {
		p := refreshtoken.NewPlan(c.logins, c.refreshes, c.period.Milliseconds(), 200, 10, 1)
		p.FirstMS = c.first.Milliseconds()
		gran := refreshtoken.Granularity(c.idle)
		got, _ := p.Crossings(gran, gran)
		want := crossingsByHand(c.logins, c.refreshes, c.period.Milliseconds(), 200, c.first.Milliseconds(), gran)
		if got != want {
			t.Errorf("%+v: schedule counts %d crossings, by hand %d", c, got, want)
		}
		if c.refreshes == 10 && c.period == 2*time.Second && got != 0 {
			t.Errorf("PR #51904's scenario crosses no boundary, the schedule says %d", got)
		}
		if c.refreshes == 40 && got == 0 {
			t.Error("40-minute sessions with a 900 s granularity must cross boundaries")
		}
	}
}

// The job deletes a session in the first run whose time is past its last
// refresh + max idle + 180 s (or its creation + max lifespan + 180 s), and
// every session that did not log out exactly once, in both variants.
func TestExpirationJobDeletesWhatExpired(t *testing.T) {
	t.Parallel()
	for _, variant := range []string{"baseline", "coarse"} {
		p := refreshtoken.DefaultParams()
		p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.Preload, p.ExpirationBatch = 400, 5, time.Minute, 3000, 64
		w := refreshtoken.New(p)
		w.SetVariant(variant)
		perRun, ids := w.JobDeletesPerRun()
		plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, p.LogoutPercent, p.Seed)
		if want := p.Logins - plan.Logouts() + p.Preload; len(ids) != want {
			t.Fatalf("%s: the job deleted %d sessions, want every one left: %d", variant, len(ids), want)
		}
		// Independently: the scenario's last event, then the first tick at
		// which each login's session is past max idle.
		idle := int64(p.MaxIdle.Seconds())
		interval := int64(p.ExpirationInterval.Seconds())
		endMS := int64(p.Logins-1)*200 + int64(p.RefreshesPerLogin)*p.RefreshPeriod.Milliseconds()
		first := endMS/1000/interval + 1
		total := 0
		for _, n := range perRun {
			total += n
		}
		if total != len(ids) || len(perRun) < 2 {
			t.Fatalf("%s: runs %v", variant, perRun)
		}
		for i := 0; i < p.Logins; i++ {
			at := int64(i) * 200
			last := refreshtoken.Epoch + (at+int64(p.RefreshesPerLogin-1)*p.RefreshPeriod.Milliseconds())/1000
			k := first
			for refreshtoken.Epoch+k*interval-idle-180 <= last {
				k++
			}
			id := plan.SessionID(i)
			tick, ok := ids[id]
			if plan.LogsOut(i) {
				if ok {
					t.Fatalf("%s: session %d logged out, the job deleted it", variant, i)
				}
				continue
			}
			if !ok || int64(tick) != k-first {
				t.Fatalf("%s: session %d (last refresh %d) deleted in run %d (found %v), want run %d", variant, i, last, tick, ok, k-first)
			}
		}
	}
}

func TestExpandIn(t *testing.T) {
	t.Parallel()
	for d, want := range map[string]string{
		"postgres":  "IN ($2, $3, $4) AND x = $5",
		"mysql":     "IN (?, ?, ?) AND x = ?",
		"oracle":    "IN (:2, :3, :4) AND x = :5",
		"sqlserver": "IN (CAST(@p2 AS varchar(36)), CAST(@p3 AS varchar(36)), CAST(@p4 AS varchar(36))) AND x = @p5",
	} {
		if got := refreshtoken.ExpandIn("IN ({{in:2}}) AND x = {{after}}", d, 3); !strings.Contains(got, want) {
			t.Errorf("%s: %s, want %s", d, got, want)
		}
	}
}
