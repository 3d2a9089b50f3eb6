package mysql

import (
	"context"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/result"
)

// The window's received and applied bytes are the position differences in
// one binlog file; a rotation makes them unavailable (never a guess), and
// the applier's gtid_slave_pos rows come out of the row counts.
func TestReplicaAppliedPositions(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: my.Name, Flavor: my.FlavorMariaDB, VersionNum: 1101119}
	s.Set(my.CapReplica, true, "")
	snap := func(mark, gtid string, writes, deletes float64) *collectors.Snapshot {
		return &collectors.Snapshot{Marks: map[string]string{markReplicaConn: mark, markGtidRows: gtid}, Counters: []collectors.Counter{
			collectors.NewCounter(collectors.DB, "", result.RowsInserted, writes, result.Exact, "Handler_write", ""),
			collectors.NewCounter(collectors.DB, "", result.RowsDeleted, deletes, result.Exact, "Handler_delete", "")}}
	}
	get := func(cs []collectors.Counter, m *result.Info) collectors.Counter {
		for _, c := range cs {
			if c.Key == collectors.NewKey(collectors.DB, "", m) {
				return c
			}
		}
		t.Fatalf("no %s in %+v", m.Name, cs)
		return collectors.Counter{}
	}
	// 101 transactions applied: 101 rows plus 101 gtid rows written; the
	// table went from 5 to 43 rows, so 63 of the 73 deletes are the applier's.
	cs, err := ReplicaApplied{}.CollectInterval(context.Background(), nil, s,
		snap("binlog.000001 2781 binlog.000001 2781 5", "5", 105, 10), snap("binlog.000001 23991 binlog.000001 23991 106", "43", 307, 83))
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[*result.Info]float64{result.RelayLogBytesReceived: 21210, result.AppliedLogBytes: 21210, result.AppliedTransactions: 101, result.RowsInserted: 101, result.RowsDeleted: 10} {
		if c := get(cs, m); c.Value != want || c.Exactness == result.Unavailable {
			t.Errorf("%s = %v (%s), want %v", m.Name, c.Value, c.Exactness, want)
		}
	}
	cs, err = ReplicaApplied{}.CollectInterval(context.Background(), nil, s,
		snap("binlog.000001 2781 binlog.000001 2781 5", "5", 0, 0), snap("binlog.000002 400 binlog.000002 400 9", "9", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if c := get(cs, result.RelayLogBytesReceived); c.Exactness != result.Unavailable || c.Note == "" {
		t.Errorf("after a rotation: %+v, want unavailable with the reason", c)
	}
}
