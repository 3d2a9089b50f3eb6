package measure_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/measure"
)

// A pair read together keeps of the before file only the objects the after
// file does not hold as they were (dropped or recreated in the window), and
// diffs exactly as the two files read one by one.
func TestReadSnapshotPairKeepsWhatTheAfterFileDoesNotHave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	obj := func(name, id string, info map[string]string) collectors.Object {
		return collectors.Object{Level: collectors.Index, Schema: "public", Name: name, Table: "t", ID: id, Info: info}
	}
	b := snap(pgServer(start), start.Add(time.Hour), 100, 40)
	a := snap(pgServer(start), start.Add(2*time.Hour), 1100, 540)
	b.Objects = append(b.Objects, obj("t_same", "1", map[string]string{"method": "btree"}), obj("t_dropped", "2", nil),
		obj("t_recreated", "3", nil), obj("t_redefined", "4", map[string]string{"method": "btree"}))
	a.Objects = append(a.Objects, obj("t_same", "1", map[string]string{"method": "btree"}),
		obj("t_recreated", "5", nil), obj("t_redefined", "4", map[string]string{"method": "hash"}), obj("t_created", "6", nil))
	writeSnap(t, dir, "before.json", b)
	writeSnap(t, dir, "after.json", a)
	bp, ap := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")

	before, after, err := measure.ReadSnapshotPair(bp, ap)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, o := range before.Snapshot.Objects {
		kept = append(kept, o.Name)
	}
	if want := []string{"t_dropped", "t_recreated", "t_redefined"}; !slices.Equal(kept, want) {
		t.Errorf("before file's objects kept: %v, want %v", kept, want)
	}
	if cs := before.Snapshot.Counters; len(cs) != 2 || cap(cs) != len(cs) {
		t.Errorf("before file's counters: %d in a list of %d", len(cs), cap(cs))
	}
	pair, err := measure.DiffSnapshots(context.Background(), measure.DiffInput{Before: before, After: after})
	if err != nil {
		t.Fatal(err)
	}
	one := func(p string) *measure.SnapshotFile {
		f, err := measure.ReadSnapshot(p)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	each, err := measure.DiffSnapshots(context.Background(), measure.DiffInput{Before: one(bp), After: one(ap)})
	if err != nil {
		t.Fatal(err)
	}
	pj, _ := json.Marshal(pair)
	ej, _ := json.Marshal(each)
	if string(pj) != string(ej) {
		t.Errorf("the pair diffs otherwise than its files read one by one:\n%s\n%s", pj, ej)
	}

	// Errors are each file's own, the before file's first.
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ before, after, want string }{{bp, junk, junk}, {junk, ap, junk}, {filepath.Join(dir, "absent.json"), junk, "absent.json"}} {
		if _, _, err := measure.ReadSnapshotPair(c.before, c.after); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSnapshotPair(%s, %s): %v, want an error naming %s", filepath.Base(c.before), filepath.Base(c.after), err, filepath.Base(c.want))
		}
	}
}
