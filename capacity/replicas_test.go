package capacity

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestParseLinkRate(t *testing.T) {
	for in, want := range map[string]float64{"1Gbit/s": 125e6, "10Gbps": 1.25e9, "100 Mbit/s": 12.5e6, "100MB/s": 100e6, "1GiB/s": 1 << 30} {
		got, err := ParseLinkRate(in)
		if err != nil || math.Abs(got-want) > 1e-6 {
			t.Errorf("ParseLinkRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1Gbix/s", "-1Gbit/s", "0Gbit/s", "fast"} {
		if _, err := ParseLinkRate(bad); err == nil || !strings.Contains(err.Error(), "--network-ceiling") {
			t.Errorf("ParseLinkRate(%q): want an error naming the flag, got %v", bad, err)
		}
	}
}

// Without measured standbys each replica receives the whole-cluster log;
// the cluster is the primary's log plus one copy per replica.
func TestAddReplicasFromTheLog(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := ParseRate("500/s")
	p, err := Project(res, rate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddReplicas(res, Replication{Replicas: 2, Link: 125e6, LinkText: "1Gbit/s"}); err != nil {
		t.Fatal(err)
	}
	v := p.Replication.Variants[0]
	whole := 23484848.0 / 15000 * 500 // the baseline's LSN difference, per second at 500/s
	if math.Abs(v.PerReplica.PerSecond-whole) > 1e-6 {
		t.Fatalf("per replica %v B/s, want the whole-cluster log %v", v.PerReplica.PerSecond, whole)
	}
	if math.Abs(v.Cluster.PerSecond-3*whole) > 1e-6 {
		t.Fatalf("cluster %v B/s, want 3 × %v", v.Cluster.PerSecond, whole)
	}
	if math.Abs(v.LinkUsed-100*whole/125e6) > 1e-9 || math.Abs(v.MaxRate-125e6/(23484848.0/15000)) > 1e-6 {
		t.Fatalf("link used %v%%, full at %v/s", v.LinkUsed, v.MaxRate)
	}
	var buf bytes.Buffer
	if err := Render(&buf, "table", "postgres", p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "log shipped to 2 replicas (--replicas)") || !strings.Contains(buf.String(), "each replica receives") {
		t.Fatalf("no replica section:\n%s", buf.String())
	}
}

// Measured standbys: the per-replica log is the bytes sent per standby, and
// their count stands in for --replicas.
func TestAddReplicasMeasured(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Runs {
		res.Runs[i].Database["replicas"] = result.New(2, result.Exact, "pg_stat_replication")
		res.Runs[i].Database["replicas_log_bytes_sent"] = result.New(2*30000000, result.Exact, "sent_lsn differences")
	}
	rate, _ := ParseRate("500/s")
	p, err := Project(res, rate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddReplicas(res, Replication{}); err != nil {
		t.Fatal(err)
	}
	if p.Replication.Replicas != 2 || !strings.Contains(p.Replication.Counted, "pg_stat_replication") {
		t.Fatalf("replicas %d from %q", p.Replication.Replicas, p.Replication.Counted)
	}
	if got, want := p.Replication.Variants[0].PerReplica.PerSecond, 30000000.0/15000*500; math.Abs(got-want) > 1e-6 {
		t.Fatalf("per replica %v, want %v", got, want)
	}
	delete(res.Runs[0].Database, "replicas")
	delete(res.Runs[1].Database, "replicas")
	if err := p.AddReplicas(res, Replication{}); err == nil {
		t.Fatal("no --replicas and no measured standby: want an error")
	}
}
