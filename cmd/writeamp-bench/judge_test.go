package main

import (
	"io"
	"os"
	"testing"

	"github.com/jedib0t/go-pretty/v6/table"
)

// A row is met, missed or, for a median of noisy pairs, undecided: a
// median short of the target with pairs on both sides of it is noise, not a
// miss; with every pair short it is a miss.
func TestNoisyRowsAreMissedOnlyWhenEveryPairMisses(t *testing.T) {
	stderr := os.Stderr
	os.Stderr, _ = os.Open(os.DevNull)
	defer func() { os.Stderr = stderr }()
	p := &progressTable{Writer: table.NewWriter()}
	p.SetOutputMirror(io.Discard)
	p.AppendNoisyRow(table.Row{"met", "", "", "0.990", ">= 0.98"}, 0.90, 1.05)
	p.AppendNoisyRow(table.Row{"straddles", "", "", "0.955", ">= 0.98"}, 0.85, 1.02)
	p.AppendNoisyRow(table.Row{"every pair short", "", "", "0.955", ">= 0.98"}, 0.93, 0.97)
	p.AppendNoisyRow(table.Row{"time straddles", "", "", "1.30", "<= 1.2"}, 1.1, 1.4)
	p.AppendRow(table.Row{"plain miss", "", "", "0.970", ">= 0.98"})
	if want := []string{"every pair short", "plain miss"}; len(p.missed) != 2 || p.missed[0] != want[0] || p.missed[1] != want[1] {
		t.Errorf("missed %q, want %q", p.missed, want)
	}
	if want := []string{"straddles", "time straddles"}; len(p.undecided) != 2 || p.undecided[0] != want[0] || p.undecided[1] != want[1] {
		t.Errorf("undecided %q, want %q", p.undecided, want)
	}
	for _, c := range []struct{ ratio, target, want string }{{"0.98", ">= 0.98", "yes"}, {"1.21", "<= 1.2", "NO"}, {"1.203", "<= 1.2", "NO"}, {"x", "<= 1", "NO (unreadable: x <= 1)"}} {
		if got := met(c.ratio, c.target); got != c.want {
			t.Errorf("met(%s, %s) = %q, want %q", c.ratio, c.target, got, c.want)
		}
	}
}
