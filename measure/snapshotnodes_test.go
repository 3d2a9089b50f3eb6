package measure_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

// A snapshot file with a node's reading reads back with the node's label,
// counters and marks, and a node without a label is refused as damaged.
func TestSnapshotFileKeepsItsNodes(t *testing.T) {
	t.Parallel()
	reading := func(lsn string, v float64) *collectors.Snapshot {
		return &collectors.Snapshot{Server: dialects.Server{Dialect: "mysql", Identity: "h:1/server_id=" + lsn}, TakenAt: time.Unix(1700000000, 0).UTC(),
			Counters: []collectors.Counter{{Key: collectors.Key{Level: collectors.DB, Metric: "log_bytes"}, Value: v, Exactness: "exact", Source: "s"}},
			Marks:    map[string]string{"replica_conn:": "binlog.000001 4 binlog.000001 4 7"}}
	}
	f := measure.NewSnapshotFile(reading("1", 10), "mysql://p")
	n := measure.NewSnapshotFile(reading("2", 20), "mysql://r")
	n.Label = "node1"
	f.Nodes = append(f.Nodes, n)
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, b, 0o600)
	got, err := measure.ReadSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].Label != "node1" || got.Nodes[0].Snapshot.Counters[0].Value != 20 ||
		got.Nodes[0].Snapshot.Marks["replica_conn:"] != "binlog.000001 4 binlog.000001 4 7" || got.Snapshot.Counters[0].Value != 10 {
		t.Fatalf("read back %+v", got.Nodes)
	}
	n.Label = ""
	b, _ = f.Bytes()
	os.WriteFile(path, b, 0o600)
	if _, err := measure.ReadSnapshot(path); err == nil {
		t.Error("a node reading without a label was accepted")
	}
}
