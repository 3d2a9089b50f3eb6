package collectors

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// plainSnapshot has Snapshot's fields and none of its methods: what
// encoding/json writes by reflection.
type plainSnapshot Snapshot

func TestSnapshotJSONIsEncodingJSONsBytes(t *testing.T) {
	t.Parallel()
	odd := []string{"", "a", `quo"te`, `back\\slash`, "tab\there", "<html>&", "naïve", "\u2028", "\x7f", "ctl\x01", "bad\xffutf8"}
	values := []float64{0, math.Copysign(0, -1), 1, -1, 42, 1e20, 1e21, 1.5e21, 1e-6, 9.99e-7, 123456789012345, 0.1, 1.0 / 3, -2.5e-9, math.MaxFloat64, math.SmallestNonzeroFloat64}
	s := &Snapshot{
		Server:  dialects.Server{Dialect: "postgres", Version: "17.1", VersionNum: 170001, Caps: map[string]bool{"b": true, "a": false}},
		TakenAt: time.Date(2026, 12, 1, 2, 3, 4, 5, time.UTC),
		Scope:   Scope{Schemas: []string{"public"}, Exact: true},
		Marks:   map[string]string{"lsn": "0/1", "a<b": "x"},
		Missing: []Missing{{Collector: "pg_wal", Reason: "r", Fix: "GRANT"}},
	}
	for i, v := range values {
		for j, str := range odd {
			c := Counter{Key: Key{Level: Index, Object: str, Metric: odd[(i+j)%len(odd)]}, Value: v, Exactness: result.Exact,
				Source: str, Identity: odd[(j+1)%len(odd)], Reset: odd[(j+2)%len(odd)], Interval: j%2 == 0, Gauge: j%3 == 0, Note: odd[(j+3)%len(odd)]}
			s.Counters = append(s.Counters, c)
		}
	}
	for j, str := range odd {
		o := Object{Level: Table, Schema: str, Name: odd[(j+1)%len(odd)], Table: odd[(j+2)%len(odd)], ID: str}
		if j%2 == 0 {
			o.Info = map[string]string{"z": str, "a": "1", str: "k"}
		}
		s.Objects = append(s.Objects, o)
	}
	for _, snap := range []*Snapshot{s, {}, {Counters: []Counter{}}} {
		want, err := json.Marshal((*plainSnapshot)(snap))
		if err != nil {
			t.Fatal(err)
		}
		// AppendJSON itself: json.Marshal would re-escape the method's output
		// and hide a difference.
		got, err := snap.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("bytes differ from encoding/json's:\n got %.400s\nwant %.400s", got, want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := (&Snapshot{Counters: []Counter{{Value: bad}}}).AppendJSON(nil); err == nil {
			t.Errorf("%v marshalled", bad)
		}
	}
}
