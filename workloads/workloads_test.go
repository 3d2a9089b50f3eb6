package workloads

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"
	"time"
)

func durationMicros(us int) time.Duration { return time.Duration(us) * time.Microsecond }

type sqlState string

func (s sqlState) Error() string    { return "server error " + string(s) }
func (s sqlState) SQLState() string { return string(s) }

// Which errors are retried is the dialect's reading of its driver's codes
// (dialects/*/retry.go and runner_test.go); here only the lost session.
func TestConnectionLost(t *testing.T) {
	lost := []error{sql.ErrConnDone, fmt.Errorf("wrapped: %w", driver.ErrBadConn), sqlState("57P01"), sqlState("08006"),
		errors.New("statement 1: failed to deallocate cached statement(s): conn closed"), errors.New("invalid connection")}
	for _, e := range lost {
		if !ConnectionLost(e) {
			t.Errorf("%v should count as a lost connection", e)
		}
	}
	for _, e := range []error{sqlState("23505"), sqlState("40001"), errors.New("syntax error"), nil} {
		if ConnectionLost(e) {
			t.Errorf("%v is not a lost connection", e)
		}
	}
}

func TestHistogramPercentiles(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(durationMicros(i))
	}
	o := NewHistogram()
	o.Record(durationMicros(5000))
	h.Merge(o)
	s := h.Summary()
	if s.Count != 1001 || s.P50 < 0.49 || s.P50 > 0.51 || s.P99 < 0.98 || s.P99 > 1.0 || s.Max < 4.99 {
		t.Errorf("summary %+v", s)
	}
}
