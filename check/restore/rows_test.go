package restore

import (
	"strings"
	"testing"
)

// What the rows say of an undo: a table whose checksum could not be read
// is unproven, never proven; rows written during the after side into a
// table the command left alone on the before side are left (reported,
// the undo kept); the command's own writes stay.
func TestRowsAfterUndoHasNoGaps(t *testing.T) {
	s := func(n int64, sum string) RowSum { return RowSum{count: n, sum: sum} }
	user := map[string]Table{"public.t": {}}
	for _, c := range []struct {
		name                     string
		quiet, pre, post, bu, au RowSum
		changed, unproven, left  int
		want                     string
	}{
		{"a checksum not read (a lock, a column gone)", s(5, "a"), s(5, "error: timeout"), s(5, "error: timeout"), s(5, "error: timeout"), s(5, "error: timeout"), 0, 1, 0, "could not be checksummed"},
		{"not checksummed at all", s(5, "a"), s(5, ""), s(5, ""), s(5, ""), s(5, ""), 0, 1, 0, "could not be checksummed"},
		{"a trigger's rows into an audit table", s(5, "a"), s(5, "a"), s(5, "a"), s(9, "b"), s(9, "b"), 0, 0, 1, "what the migration created"},
		{"the undo rewrote every value", s(5, "a"), s(5, "a"), s(5, "a"), s(5, "a"), s(5, "z"), 1, 0, 0, "the undo changed its rows"},
		{"the migration's rows not put back", s(5, "a"), s(5, "a"), s(6, "m"), s(6, "m"), s(6, "m"), 1, 0, 0, "did not put them back"},
		{"the command's own writes stay", s(5, "a"), s(5, "c"), s(5, "c"), s(5, "d"), s(5, "d"), 0, 0, 0, ""},
		{"as it was", s(5, "a"), s(5, "a"), s(5, "a"), s(5, "a"), s(5, "a"), 0, 0, 0, ""},
	} {
		tg := &Target{User: user, Quiet: map[string]RowSum{"public.t": c.quiet},
			Pre: Snapshot{Rows: map[string]RowSum{"public.t": c.pre}}, Post: Snapshot{Rows: map[string]RowSum{"public.t": c.post}}}
		v := rowsAfterUndo(tg, map[string]RowSum{"public.t": c.bu}, map[string]RowSum{"public.t": c.au})
		all := strings.Join(append(append(v.changed, v.unproven...), v.left...), "; ")
		if len(v.changed) != c.changed || len(v.unproven) != c.unproven || len(v.left) != c.left || !strings.Contains(all, c.want) {
			t.Errorf("%s: %+v, want %d changed, %d unproven, %d left, %q", c.name, v, c.changed, c.unproven, c.left, c.want)
		}
	}
}
