package result

import "strings"

// ReplicaPrefix starts a per-standby family: "replica.<standby>.<metric>",
// the standby named as the primary's pg_stat_replication (application_name)
// or replica status names it. SlotPrefix is "replication_slot.<slot>.<metric>",
// logical decoding per slot. Standby and slot names are the user's, so the
// families are matched on their last part.
const (
	ReplicaPrefix = "replica."
	SlotPrefix    = "replication_slot."
)

// replicaMetrics are the last parts the families take, with their entries.
var replicaMetrics = map[string]Info{
	"log_bytes_sent":     {Unit: Bytes, Label: "log bytes sent", Better: Lower},
	"log_bytes_written":  {Unit: Bytes, Label: "log bytes written", Better: Lower, Show: JSONOnly},
	"log_bytes_flushed":  {Unit: Bytes, Label: "log bytes flushed", Better: Lower, Show: JSONOnly},
	"log_bytes_replayed": {Unit: Bytes, Label: "log bytes replayed", Better: Lower},
	"synchronous":        {Unit: Count, Label: "synchronous (1) or not (0)", Better: Neither, Total: true, Show: JSONOnly},
	"write_lag_ms_p95":   {Unit: Millis, Label: "write lag p95 (sampled)", Better: Lower, Total: true, Show: JSONOnly},
	"flush_lag_ms_p95":   {Unit: Millis, Label: "flush lag p95 (sampled)", Better: Lower, Total: true, Show: JSONOnly},
	"replay_lag_ms_p50":  {Unit: Millis, Label: "replay lag p50 (sampled)", Better: Lower, Total: true},
	"replay_lag_ms_p95":  {Unit: Millis, Label: "replay lag p95 (sampled)", Better: Lower, Total: true},
	"replay_lag_ms_max":  {Unit: Millis, Label: "replay lag max (sampled)", Better: Lower, Total: true},
}

var slotMetrics = map[string]Info{
	"decoded_bytes": {Unit: Bytes, Label: "bytes decoded", Better: Lower},
	"decoded_txns":  {Unit: Count, Label: "transactions decoded", Better: Neither, Show: JSONOnly},
	"spill_bytes":   {Unit: Bytes, Label: "bytes spilled to disk", Better: Lower, Show: WhenNonZero},
	"spill_count":   {Unit: Count, Label: "spills to disk", Better: Lower, Show: WhenNonZero},
	"stream_bytes":  {Unit: Bytes, Label: "bytes streamed in progress", Better: Lower, Show: WhenNonZero},
}

// replicaInfo is the entry of a name of either family, false for another name.
func replicaInfo(name string) (Info, bool) {
	for _, f := range []struct {
		prefix, what string
		metrics      map[string]Info
	}{{ReplicaPrefix, "standby", replicaMetrics}, {SlotPrefix, "slot", slotMetrics}} {
		rest, ok := strings.CutPrefix(name, f.prefix)
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, ".")
		if i <= 0 {
			return Info{}, false
		}
		info, ok := f.metrics[rest[i+1:]]
		if !ok {
			return Info{}, false
		}
		info.Name, info.Levels, info.Order = name, db, len(catalogue)+2
		info.Label = f.what + " " + rest[:i] + ": " + info.Label
		return info, true
	}
	return Info{}, false
}
