package result

// Oracle Data Guard's own last parts of the per-standby family
// (ReplicaPrefix): a physical standby's transport lag, which has no
// counterpart in PostgreSQL's walsender figures (its write lag is measured
// on the primary, this on the standby). Kept out of catalogue_replicas.go so
// each dialect adds its parts without touching another's.
func init() {
	for name, info := range map[string]Info{
		"transport_lag_ms_p95": {Unit: Millis, Label: "transport lag p95 (sampled)", Better: Lower, Total: true},
		"transport_lag_ms_max": {Unit: Millis, Label: "transport lag max (sampled)", Better: Lower, Total: true, Show: JSONOnly},
	} {
		if _, dup := replicaMetrics[name]; dup {
			panic("result: replica metric " + name + " defined twice")
		}
		replicaMetrics[name] = info
	}
}
