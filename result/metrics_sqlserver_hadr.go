package result

// SQL Server's copies (Always On availability groups) and Azure SQL
// Database's log-rate governor: database-level figures that no other dialect
// keeps. The per-secondary figures are the replica family's
// (catalogue_replicas.go). Declared after metrics.go's, so they sort after
// the other replication figures.
var (
	// On a primary: the commits that waited for a synchronous-commit
	// secondary, and how long they waited (SQLServer:Database Replica).
	MirroredWriteTransactions = def(Info{Name: "mirrored_write_transactions", Levels: db, Unit: Count, Label: "transactions that waited for a synchronous secondary", Better: Neither})
	MirroredCommitDelayMs     = def(Info{Name: "mirrored_commit_delay_ms", Levels: db, Unit: Millis, Label: "commit wait for synchronous secondaries", Better: Lower})
	// On a secondary: the primary's log this copy received (redone is
	// ReplayedLogBytes, as on a PostgreSQL standby).
	ReceivedLogBytes = def(Info{Name: "received_log_bytes", Levels: db, Unit: Bytes, Label: "log bytes received (secondary)", Better: Lower})
	// Azure SQL Database: the log write rate as a share of the service
	// tier's limit, over the 15-second intervals of sys.dm_db_resource_stats
	// that overlap the window. A rate, so never divided per operation.
	LogRateLimitShareMax = def(Info{Name: "log_rate_limit_share_max", Levels: db, Unit: Fraction, Label: "log rate, share of the tier's limit: max of 15 s intervals", Better: Lower, Total: true})
	LogRateLimitShareAvg = def(Info{Name: "log_rate_limit_share_avg", Levels: db, Unit: Fraction, Label: "log rate, share of the tier's limit: mean of 15 s intervals", Better: Lower, Total: true})
)

// SQL Server's last parts of the per-replica family (ReplicaPrefix), kept
// here so each dialect adds its parts without touching another's. Bytes
// sent is the replica's whole stream (every database of its group and the
// group's own messages), so it is no log_bytes_sent of this database. The
// queues are the largest sampled; the rates the server's own averages at
// the window's end, taken over its last active period, not over the window.
func init() {
	for name, info := range map[string]Info{
		"bytes_sent":               {Unit: Bytes, Label: "bytes sent (every database of its availability group)", Better: Lower},
		"log_send_queue_bytes_max": {Unit: Bytes, Label: "log not yet sent: max (sampled)", Better: Lower, Total: true},
		"redo_queue_bytes_max":     {Unit: Bytes, Label: "log received, not yet redone: max (sampled)", Better: Lower, Total: true},
		"log_send_rate":            {Unit: Bytes, Label: "log send rate per second (server's average, at the end)", Better: Neither, Total: true, Show: JSONOnly},
		"redo_rate":                {Unit: Bytes, Label: "redo rate per second (server's average, at the end)", Better: Neither, Total: true, Show: JSONOnly},
	} {
		if _, dup := replicaMetrics[name]; dup {
			panic("result: replica metric " + name + " defined twice")
		}
		replicaMetrics[name] = info
	}
}
