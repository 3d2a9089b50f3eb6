package mysql

import (
	"context"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// A Galera node's status (values as MariaDB 10.11 with galera-4 26.4 gives
// them, all VARCHAR): its write-set counters, flow control in ms, and the
// cluster size taken at the window's end, not diffed.
func TestGlobalStatusGaleraNode(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101114, my.CapLSNCurrent)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status", s.VersionNum)).WillReturnRows(statusRows(
		"Innodb_lsn_current", "47371", "wsrep_cluster_size", "3", "wsrep_replicated", "60", "wsrep_replicated_bytes", "19760",
		"wsrep_received", "61", "wsrep_received_bytes", "19768", "wsrep_local_cert_failures", "0", "wsrep_local_bf_aborts", "0",
		"wsrep_flow_control_paused_ns", "2500000", "wsrep_flow_control_sent", "0", "wsrep_flow_control_recv", "1"))
	cs, err := GlobalStatus{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	for name, want := range map[string]float64{
		"writesets_replicated": 60, "writeset_bytes_replicated": 19760, "galera_actions_received": 61,
		"galera_action_bytes_received": 19768, "cert_failures": 0, "bf_aborts": 0,
		"flow_control_paused_ms": 2.5, "flow_control_sent": 0, "flow_control_received": 1, "galera_cluster_size": 3,
	} {
		c, ok := got["database:"+name]
		if !ok || c.Value != want || c.Exactness != result.Exact {
			t.Errorf("%s = %+v, want %v exact", name, c, want)
		}
	}
	if c := got["database:galera_cluster_size"]; !c.Interval {
		t.Errorf("the cluster size is a reading at the window's end, not a difference: %+v", c)
	}
	if c := got["database:writesets_replicated"]; c.Interval || c.Gauge {
		t.Errorf("write-sets are a cumulative counter: %+v", c)
	}
}

// A server with the wsrep variables but no cluster (MariaDB without a
// provider says wsrep_cluster_size 0) has no Galera metrics at all, not
// zeros that would read as "nothing replicated".
func TestGlobalStatusNotAGaleraNode(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101114, my.CapLSNCurrent)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status", s.VersionNum)).WillReturnRows(statusRows(
		"Innodb_lsn_current", "47371", "wsrep_cluster_size", "0", "wsrep_local_cert_failures", "0", "wsrep_local_bf_aborts", "0",
		"wsrep_flow_control_paused_ns", "0", "wsrep_flow_control_sent", "0", "wsrep_flow_control_recv", "0"))
	cs, err := GlobalStatus{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range byMetric(cs) {
		switch k {
		case "database:galera_cluster_size", "database:cert_failures", "database:bf_aborts", "database:flow_control_paused_ms", "database:writesets_replicated":
			t.Errorf("%s on a server that is not a Galera node", k)
		}
	}
}
