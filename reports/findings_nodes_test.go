package reports

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// A primary and its standby measured in one window (--node) are not two
// variants: the findings are the primary's costs and what the standby
// wrote and replayed, never "the standby's WAL is 40% lower".
func TestFindingsOfAServerAndItsCopy(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	r.Runs = []result.Run{r.Runs[0], r.Runs[0]}
	primary, standby := &r.Runs[0], &r.Runs[1]
	standby.Variant, standby.Label, standby.NodeOf = "node1", "node1", primary.Variant
	standby.Database = map[string]result.Metric{}
	for k, v := range primary.Database {
		standby.Database[k] = v
	}
	setMetric(standby.Database, "log_bytes", primary.Database["log_bytes"].V()*0.6)
	standby.Database["replayed_log_bytes"] = result.Metric{Value: ptr(primary.Database["log_bytes"].V()), Exactness: result.Exact, Source: "pg_last_wal_replay_lsn"}

	c := FromResult(r)
	if h := findingsHeading(c); !strings.Contains(h, "and its copy's") {
		t.Errorf("heading %q", h)
	}
	var copyLine, cluster string
	for _, f := range c.Findings {
		if f.Kind == "change" {
			t.Errorf("a copy judged as a variant: %q", f.Text)
		}
		if strings.HasPrefix(f.Text, "node1 (a copy of "+primary.Variant) {
			copyLine = f.Text
		}
		if f.Object == "cluster" {
			cluster = f.Text
		}
	}
	ops := float64(primary.Operations["refreshes"])
	own, replayed := result.FormatBytes(primary.Database["log_bytes"].V()*0.6/ops), result.FormatBytes(primary.Database["log_bytes"].V()/ops)
	if !strings.Contains(copyLine, own+" of its own log") || !strings.Contains(copyLine, replayed+" log bytes replayed (standby)") {
		t.Errorf("the copy's finding %q, want %s own and %s replayed", copyLine, own, replayed)
	}
	if want := result.FormatBytes(primary.Database["log_bytes"].V() * 1.6 / ops); !strings.Contains(cluster, "the cluster wrote "+want+" of log per refresh on 2 nodes") {
		t.Errorf("cluster finding %q, want %s", cluster, want)
	}

	// Runs that merely share a name with another run's NodeOf but are not
	// all copies of the first are variants again.
	standby.NodeOf = "elsewhere"
	if c := FromResult(r); copiesOf(c) {
		t.Error("a run copied from another server counted as this one's copy")
	}
}
