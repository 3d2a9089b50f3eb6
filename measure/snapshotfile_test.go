package measure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

func pgServer(started time.Time) dialects.Server {
	return dialects.Server{Dialect: "postgres", Version: "15.20", VersionNum: 150020, Database: "app",
		Identity: "7311/app", StartedAt: started, Caps: map[string]bool{"pg_walinspect": true}}
}

func snap(s dialects.Server, at time.Time, upd, hot float64) *collectors.Snapshot {
	c := func(metric string, v float64, src string) collectors.Counter {
		return collectors.Counter{Key: collectors.Key{Level: collectors.Table, Object: "public.t", Metric: metric},
			Value: v, Exactness: "exact", Source: src, Identity: "16384"}
	}
	return &collectors.Snapshot{Server: s, TakenAt: at,
		Objects:  []collectors.Object{{Level: collectors.Table, Schema: "public", Name: "t"}},
		Counters: []collectors.Counter{c("rows_updated", upd, "pg_stat_user_tables.n_tup_upd"), c("hot_updates", hot, "pg_stat_user_tables.n_tup_hot_upd")}}
}

func writeSnap(t *testing.T, dir, name string, s *collectors.Snapshot) *measure.SnapshotFile {
	t.Helper()
	var buf bytes.Buffer
	if err := measure.NewSnapshotFile(s, "postgres://app@db/app").Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := measure.ReadSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDiffOfSnapshotFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t0 := start.Add(time.Hour)
	before := writeSnap(t, dir, "before.json", snap(pgServer(start), t0, 100, 40))
	after := writeSnap(t, dir, "after.json", snap(pgServer(start), t0.Add(90*time.Second), 1100, 540))
	if before.Snapshot.Server.Identity != "7311/app" || !before.Snapshot.Server.StartedAt.Equal(start) {
		t.Errorf("identity and start time not kept: %+v", before.Snapshot.Server)
	}
	res, err := measure.DiffSnapshots(context.Background(), measure.DiffInput{Before: before, After: after, Label: "nightly"})
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.Variant != "nightly" || run.ElapsedSeconds != 90 {
		t.Errorf("variant %q elapsed %v", run.Variant, run.ElapsedSeconds)
	}
	tb := run.Table("t")
	if tb.Metrics["rows_updated"].V() != 1000 || tb.Metrics["hot_updates"].V() != 500 {
		t.Errorf("metrics %+v", tb.Metrics)
	}
	// The PostgreSQL derivers still run without a database.
	if r := tb.Metrics["hot_ratio"]; r.V() != 0.5 || r.Exactness != "derived" {
		t.Errorf("hot_ratio %+v", r)
	}
	var reasons []string
	for _, m := range run.Missing {
		reasons = append(reasons, m.Collector+": "+m.Reason)
	}
	if !strings.Contains(strings.Join(reasons, "\n"), "pg_wal: reads the log between the two snapshots, so it needs the database at diff time: pass --dsn") {
		t.Errorf("missing %v", reasons)
	}
	if res.Workload.Params["before"] != "before.json" {
		t.Errorf("params %v", res.Workload.Params)
	}
}

func TestDiffRefusesMismatchedSnapshots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t0 := start.Add(time.Hour)
	before := writeSnap(t, dir, "before.json", snap(pgServer(start), t0, 100, 40))
	restarted := writeSnap(t, dir, "restarted.json", snap(pgServer(start.Add(2*time.Hour)), t0.Add(3*time.Hour), 5, 1))
	other := pgServer(start)
	other.Identity = "9999/app"
	elsewhere := writeSnap(t, dir, "elsewhere.json", snap(other, t0.Add(time.Minute), 1100, 540))
	earlier := writeSnap(t, dir, "earlier.json", snap(pgServer(start), t0.Add(-time.Minute), 50, 20))
	for _, c := range []struct {
		after *measure.SnapshotFile
		want  string
	}{
		{restarted, "restarted"},
		{elsewhere, "different servers"},
		{earlier, "give the earlier snapshot first"},
	} {
		_, err := measure.DiffSnapshots(context.Background(), measure.DiffInput{Before: before, After: c.after})
		if !errors.Is(err, measure.ErrMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want a mismatch saying %q, got %v", c.after.Path, c.want, err)
		}
	}
}

func TestReadSnapshotRefusesWhatIsNotOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for path, want := range map[string]string{
		write("result.json", `{"schema_version":1,"tool":{"name":"writeamp"},"runs":[]}`): "is a writeamp result, not a snapshot",
		write("junk.json", `hello`):                                             "not a writeamp snapshot (not JSON",
		write("other.json", `{"kind":"something"}`):                             `not a writeamp snapshot (kind "something")`,
		write("future.json", `{"kind":"writeamp-snapshot","schema_version":9}`): "schema_version 9",
		write("empty.json", `{"kind":"writeamp-snapshot","schema_version":1}`):  "no reading",
		filepath.Join(dir, "absent.json"):                                       "no such file",
	} {
		_, err := measure.ReadSnapshot(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", filepath.Base(path), want, err)
		}
	}
}

func TestRedactArgsHidesPasswords(t *testing.T) {
	t.Parallel()
	got := strings.Join(measure.RedactArgs([]string{"pgbench", "postgres://app:s3cret@db:5432/x", "host=db password=s3cret dbname=x", "--password=s3cret", "-c", "2",
		`host=db password='it\'s"q%20x' dbname=x`, "postgres://u:p@ss:w/rd%@h/x"}), " ")
	for _, leak := range []string{"s3cret", "q%20x", `s"q`, "ss:w", "rd%"} {
		if strings.Contains(got, leak) {
			t.Errorf("password kept (%s): %s", leak, got)
		}
	}
	if got := strings.Join(measure.RedactArgs([]string{"mysql", "-pS3cret", "-h", "db"}), " "); got != "mysql -pxxxxx -h db" {
		t.Errorf("mysql -p: %s", got)
	}
	if !strings.Contains(got, "postgres://app:xxxxx@db:5432/x") || !strings.Contains(got, "-c 2") {
		t.Errorf("redacted too much: %s", got)
	}
}

// A negative cumulative counter in a snapshot file was edited: refused, named.
func TestReadSnapshotRefusesNegativeCounters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := snap(pgServer(time.Now()), time.Now(), -100, 5)
	var buf bytes.Buffer
	measure.NewSnapshotFile(s, "").Write(&buf)
	p := filepath.Join(dir, "edited.json")
	os.WriteFile(p, buf.Bytes(), 0o644)
	if _, err := measure.ReadSnapshot(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "rows_updated") {
		t.Errorf("want an error naming the file and the counter, got %v", err)
	}
}

// The hand-appended snapshot file is byte for byte what json.Encoder writes.
func TestSnapshotFileWriteIsEncodingJSONsBytes(t *testing.T) {
	t.Parallel()
	type plainSnapshot collectors.Snapshot // no MarshalJSON
	type plainFile struct {
		Kind          string         `json:"kind"`
		SchemaVersion int            `json:"schema_version"`
		Tool          any            `json:"tool"`
		Where         string         `json:"where,omitempty"`
		Snapshot      *plainSnapshot `json:"snapshot"`
		Instrumented  string         `json:"instrumented,omitempty"`
	}
	s := snap(pgServer(time.Unix(1e9, 0).UTC()), time.Unix(1e9+60, 5).UTC(), 10, 3)
	s.Marks = map[string]string{"lsn": "0/16B3748"}
	for _, f := range []*measure.SnapshotFile{
		measure.NewSnapshotFile(s, "postgres://u@h/d"),
		{Kind: measure.SnapshotKind, Instrumented: `{"monitors":["a<b"]}`},
	} {
		var got, want bytes.Buffer
		if err := f.Write(&got); err != nil {
			t.Fatal(err)
		}
		p := plainFile{f.Kind, f.SchemaVersion, f.Tool, f.Where, (*plainSnapshot)(f.Snapshot), f.Instrumented}
		if err := json.NewEncoder(&want).Encode(p); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got  %s\nwant %s", got.String(), want.String())
		}
	}
}
