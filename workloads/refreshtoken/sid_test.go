package refreshtoken

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A plan's ids survive the 16-byte form exactly; any other spelling is not
// a plan's session, so the job refuses a find's row that is not one.
func TestSessionIDsRoundTripAndOthersAreRefused(t *testing.T) {
	w := New(DefaultParams())
	plan := w.ensurePlan()
	var set idSet
	for i := 0; i < 1000; i++ {
		text := plan.sessionID(i)
		s, ok := parseSID(text)
		if !ok || s.String() != text {
			t.Fatalf("session %d: %q read back as %q (ok %v)", i, text, s.String(), ok)
		}
		set = append(set, s)
	}
	slices.SortFunc(set, compareSID)
	id := plan.sessionID(7)
	if !set.has(id) {
		t.Errorf("%s not found among the plan's ids", id)
	}
	for _, bad := range []string{
		"", "a", plan.sessionID(2000), // not in the set
		upper(id), id[:35], id + "0", id[:8] + "_" + id[9:], // not the plan's form
		"0123456g-0000-4000-8000-000000000000",
	} {
		if set.has(bad) {
			t.Errorf("%q taken for one of the plan's sessions", bad)
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// A seed names the same sessions as when the ids were formatted from the
// login's random draws: results and variant files of earlier runs name them.
func TestSessionIDsAreTheSeedsAsBefore(t *testing.T) {
	plan := New(DefaultParams()).ensurePlan()
	for i := 0; i < 1000; i++ {
		r := rand.New(rand.NewPCG(plan.Seed, uint64(i)))
		want := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&0xffffffffffff)
		if got := plan.sessionID(i); got != want {
			t.Fatalf("session %d: %s, was %s", i, got, want)
		}
	}
}
