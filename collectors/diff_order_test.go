package collectors

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Diff pairs counters by key whatever their order: in the same order it
// walks both lists, otherwise it falls back to a map of positions, and both
// give the same values (an object only in after counts from its creation).
func TestDiffPairsCountersInAnyOrder(t *testing.T) {
	t.Parallel()
	var before, after []Counter
	for i := range 200 {
		obj := fmt.Sprintf("s.i%03d", i)
		for j, m := range []string{"scans", "leaf_inserts"} {
			before = append(before, c(Index, obj, m, float64(10*i+j), "1"))
			after = append(after, c(Index, obj, m, float64(30*i+j), "1"))
		}
	}
	after = append(after, c(Index, "s.new", "scans", 7, "2"))
	check := func(name string, b []Counter) {
		d, err := Diff(snap(b...), snap(after...))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Values) != len(after) {
			t.Fatalf("%s: %d values, want %d", name, len(d.Values), len(after))
		}
		for _, a := range after[:len(after)-1] {
			var i int
			fmt.Sscanf(a.Object, "s.i%d", &i)
			if got, want := d.Values[a.Key].V(), float64(20*i); got != want || d.Values[a.Key].Exactness == "unavailable" {
				t.Errorf("%s: %s = %v, want %v", name, a.Key, got, want)
			}
		}
		if v := d.Values[after[len(after)-1].Key]; v.V() != 7 {
			t.Errorf("%s: the new object's counter is %v, want 7 (counted from creation)", name, v.V())
		}
	}
	check("same order", before)
	shuffled := append([]Counter(nil), before...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	check("shuffled", shuffled)
	check("one missing", before[1:])
}
