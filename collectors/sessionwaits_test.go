package collectors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A pooled connection reset between polls clears its counters: what it had
// counted is kept, and the figures say a session lost what it waited after
// its last poll. A session that ended is counted up to its last poll.
func TestSessionWaitsResetsAndEnds(t *testing.T) {
	t.Parallel()
	reads := [][]SessionWait{
		{{"1", "a", "WRITELOG", 10, 5}, {"2", "b", "WRITELOG", 1, 1}, {"9", "z", "WRITELOG", 1, 1}}, // baseline
		{{"1", "a", "WRITELOG", 50, 25}, {"2", "b", "WRITELOG", 4, 3}, {"9", "z", "WRITELOG", 99, 99}},
		{{"1", "a", "WRITELOG", 7, 2}, {"9", "z", "WRITELOG", 99, 99}},                                     // a reset, b ended
		{{"1", "a", "WRITELOG", 9, 3}, {"3", "c", "PAGELATCH_EX", 2, 8}, {"9", "z", "WRITELOG", 999, 999}}, // the last reading, c new
	}
	i := 0
	read := func(context.Context) ([]SessionWait, error) { r := reads[i]; i++; return r, nil }
	ours := func(id string) bool { return id != "9" } // z is someone else's
	w, err := StartSessionWaits(context.Background(), time.Hour, "view", read, ours, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.poll(context.Background())
	w.poll(context.Background())
	cs, err := w.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Counter{}
	for _, c := range cs {
		got[c.Metric] = c
	}
	// a: 40 before the reset + 9 after; b: 3 until it ended.
	if c := got["session_waits.writelog"]; c.Value != 40+9+3 || c.Exactness != "approx" || !strings.Contains(c.Note, "2 of 3 sessions ended or were reset") {
		t.Errorf("writelog %+v", c)
	}
	if c := got["session_waits.writelog_ms"]; c.Value != 20+3+2 {
		t.Errorf("writelog_ms %+v", c)
	}
	if c := got["session_waits.pagelatch_ex_ms"]; c.Value != 8 {
		t.Errorf("a session that opened in the window counts from zero: %+v", c)
	}
}

func TestSessionWaitsFirstReadFails(t *testing.T) {
	t.Parallel()
	closed := false
	_, err := StartSessionWaits(context.Background(), 0, "view", func(context.Context) ([]SessionWait, error) { return nil, errors.New("denied") }, nil, func() { closed = true })
	if err == nil || !closed {
		t.Errorf("a failing first read is an error and closes the connection: %v %v", err, closed)
	}
}

func TestEventSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"enq: TX - index contention": "enq_tx_index_contention", "PAGELATCH_EX": "pagelatch_ex", "log file sync": "log_file_sync", " buffer busy waits ": "buffer_busy_waits"} {
		if got := EventSlug(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Each state's share of the sampled active time, overall and per operation.
func TestSharesTally(t *testing.T) {
	t.Parallel()
	samples := [][]SessionState{
		{{"refresh", "Lock", "row_lock"}, {"login", "State", "commit"}},
		{{"refresh", "Lock", "row_lock"}},
		{},
		{{"refresh", "State", "commit"}},
	}
	n := 0
	done := make(chan struct{})
	read := func(context.Context) ([]SessionState, error) {
		if n >= len(samples) {
			<-done
			return nil, errors.New("stopped")
		}
		s := samples[n]
		n++
		return s, nil
	}
	sh := StartShares(context.Background(), time.Millisecond, "view", read, nil)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		sh.mu.Lock()
		ticks := sh.ticks
		sh.mu.Unlock()
		if ticks == len(samples) || time.Now().After(deadline) {
			break
		}
	}
	close(done)
	cs, err := sh.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, c := range cs {
		got[c.Metric] = c.Value
		if c.Exactness != "approx" || !strings.Contains(c.Source, "4 samples, 4 session-samples active") {
			t.Errorf("%s: %+v", c.Metric, c)
		}
	}
	for m, want := range map[string]float64{"wait_samples": 4, "active_sessions": 1, "wait_share.Lock.row_lock": 0.5, "wait_share.State.commit": 0.5,
		"op_wait_share.refresh.Lock.row_lock": 2.0 / 3, "op_wait_share.login.State.commit": 1} {
		if got[m] != want {
			t.Errorf("%s = %v, want %v (all %v)", m, got[m], want, got)
		}
	}
}
