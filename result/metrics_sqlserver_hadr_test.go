package result

import (
	"strings"
	"testing"
)

// SQL Server's replica parts are found under any replica name a server can
// have (HOST\INSTANCE, a dotted host), at the database level, in their unit.
func TestSQLServerReplicaParts(t *testing.T) {
	for name, unit := range map[string]Unit{
		`replica.SQL2\KC.bytes_sent`:                          Bytes,
		"replica.node2.corp.example.log_send_queue_bytes_max": Bytes,
		"replica.SQL2.redo_queue_bytes_max":                   Bytes,
		"replica.SQL2.log_send_rate":                          Bytes,
		"replica.SQL2.redo_rate":                              Bytes,
	} {
		i, ok := Lookup(name)
		if !ok || i.Unit != unit || !i.At(LevelDatabase) || !strings.HasPrefix(i.Label, "standby ") {
			t.Errorf("%s: %+v (known %v)", name, i, ok)
		}
	}
	if i, _ := Lookup("replica.SQL2.log_send_rate"); !i.Total {
		t.Error("a rate is never divided per operation")
	}
	if i, ok := Lookup(LogRateLimitShareMax.Name); !ok || !i.IsRatio() || !i.Total {
		t.Errorf("log_rate_limit_share_max: %+v", i)
	}
}
