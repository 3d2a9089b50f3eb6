package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
)

// The release stamp is main.Version (make dist, the action's build): the
// binary prints it, and the command hands it to measure, which writes it
// into the results it makes.
func TestVersionStampedInMainReachesResults(t *testing.T) {
	testenv.Heavy(t, "builds writeamp")
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "writeamp")
	const stamp = "v9.9.9-stamp"
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.Version="+stamp, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "writeamp "+stamp+"\n") {
		t.Fatalf("version: %v\n%s", err, out)
	}
	started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"before.json", "after.json"} {
		s := &collectors.Snapshot{TakenAt: started.Add(time.Duration(i+1) * time.Minute),
			Server:   dialects.Server{Dialect: "postgres", Version: "15.20", VersionNum: 150020, Database: "app", Identity: "1/app", StartedAt: started},
			Counters: []collectors.Counter{{Key: collectors.Key{Level: collectors.DB, Metric: "xact_commit"}, Value: float64(100 * (i + 1)), Source: "pg_stat_database.xact_commit"}}}
		b, err := measure.NewSnapshotFile(s, "postgres://app@db/app").Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err = exec.Command(bin, "diff", "-q", "--format", "json", filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")).Output()
	if err != nil {
		t.Fatalf("diff: %v\n%s", err, out)
	}
	var res struct {
		Tool struct{ Version string } `json:"tool"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Tool.Version != stamp {
		t.Errorf("the diff's result names writeamp %q (%v), want the stamp %q", res.Tool.Version, err, stamp)
	}
}
