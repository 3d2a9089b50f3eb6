package restore

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// A migration that only added things is undone by dropping them, the
// dependents of tables it did not create first; one that changed or
// removed a line has no proved inverse.
func TestDiffInverse(t *testing.T) {
	t.Parallel()
	pre := Catalog{"relation public.jobs kind r", "column public.jobs.id integer"}
	post := append(Catalog{
		"relation public.jobs_touched kind i",
		"index public.jobs_touched: CREATE INDEX jobs_touched ON public.jobs USING btree (id)",
		"relation public.audit kind r",
		"column public.jobs.note text",
		"schema extra",
	}, pre...)
	got, ok := DiffInverse(pre, post)
	want := []string{"DROP INDEX IF EXISTS public.jobs_touched", "ALTER TABLE public.jobs DROP COLUMN IF EXISTS note", "DROP TABLE IF EXISTS public.audit", "DROP SCHEMA IF EXISTS extra"}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("DiffInverse = %q, %v; want %q", got, ok, want)
	}
	if _, ok := DiffInverse(pre, Catalog{"relation public.jobs kind r", "column public.jobs.id bigint"}); ok {
		t.Fatal("a changed column has no proved inverse")
	}
}

// The state is what the exit code branches on; the lines name that code
// when the database is not as it was.
func TestRestorationState(t *testing.T) {
	t.Parallel()
	var none *Restoration
	for _, c := range []struct {
		r    *Restoration
		want State
	}{
		{none, None},
		{&Restoration{Method: MethodKept}, Kept},
		{&Restoration{Method: MethodUndo, Checked: true}, AsItWas},
		{&Restoration{Method: MethodUndo, Checked: true, Refused: []string{"DROP TABLE jobs"}}, Refused},
		{&Restoration{Method: MethodUndo}, Unproven},
		{&Restoration{Method: MethodUndo, Checked: true, Added: []string{"index left"}}, Failed},
	} {
		if got := c.r.State(); got != c.want {
			t.Errorf("%+v: state %v, want %v", c.r, got, c.want)
		}
	}
	r := &Restoration{Method: MethodUndo, How: "undone", Checked: true, Removed: []string{"column public.jobs.note text"}}
	lines := strings.Join(r.Lines(), "\n")
	if r.OK() || !strings.Contains(lines, "  lost: column public.jobs.note text") || !strings.Contains(lines, "exit code 3") {
		t.Fatalf("lines:\n%s", lines)
	}
	if added, removed := (Catalog{"a", "a", "b"}).Diff(Catalog{"a", "c"}); !reflect.DeepEqual(added, []string{"c"}) || !reflect.DeepEqual(removed, []string{"a", "b"}) {
		t.Fatalf("Diff counts repeated lines: added %q removed %q", added, removed)
	}
}

// SQL Server and Oracle keep no record of an applied migration: their
// guard is nil, and a restore that does not come back clean still reports.
func TestNilGuardHasNoMarker(t *testing.T) {
	var gd *Guard
	if gd.Marker() != "" {
		t.Errorf("a nil guard named a record: %q", gd.Marker())
	}
	if err := gd.Mark(context.Background(), nil, nil); err != nil {
		t.Errorf("a nil guard's Mark: %v", err)
	}
	gd.Unmark(context.Background())
}
