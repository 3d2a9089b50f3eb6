package result

// The catalogue in display order: the rows and HOT a table leads with, then
// the index writes, the log, and the rest alphabetically. Each entry is an
// exported value the collectors and derivers emit through (see the package
// comment in catalogue.go for adding one).
var (
	RowsInserted   = def(Info{Name: "rows_inserted", Levels: dbTb, Unit: Count, Label: "rows inserted", Better: Neither, Finding: &FindingSpec{Level: LevelTable, Verb: "inserts", Noun: "rows", Rank: 4}, Timeline: 3})
	RowsUpdated    = def(Info{Name: "rows_updated", Levels: dbTb, Unit: Count, Label: "rows updated", Better: Neither, Finding: &FindingSpec{Level: LevelTable, Verb: "updates", Noun: "rows", Rank: 5}, Timeline: 4})
	HotUpdates     = def(Info{Name: "hot_updates", Levels: tb, Unit: Count, Label: "hot updates", Better: Higher, Timeline: 6})
	NonHotUpdates  = def(Info{Name: "non_hot_updates", Levels: tb, Unit: Count, Label: "non hot updates", Better: Lower})
	NewpageUpdates = def(Info{Name: "newpage_updates", Levels: tb, Unit: Count, Label: "newpage updates", Better: Lower, Finding: &FindingSpec{Level: LevelTable, Verb: "moves", Noun: "updated rows to another page", Rank: 7, Secondary: true}})
	HotRatio       = def(Info{Name: "hot_ratio", Levels: tb, Unit: Fraction, Label: "hot ratio", Better: Higher, Finding: &FindingSpec{Level: LevelTable, Rank: 1}, Chart: "hot", ChartLevel: LevelTable})
	RowsDeleted    = def(Info{Name: "rows_deleted", Levels: dbTb, Unit: Count, Label: "rows deleted", Better: Neither, Finding: &FindingSpec{Level: LevelTable, Verb: "deletes", Noun: "rows", Rank: 6}, Timeline: 5})
	// rows_written: a table's rows inserted + updated + deleted where the
	// server counts only their sum (MariaDB's TABLE_STATISTICS.ROWS_CHANGED).
	RowsWritten          = def(Info{Name: "rows_written", Levels: tb, Unit: Count, Label: "rows written", Better: Neither})
	IndexEntries         = def(Info{Name: "index_entries", Levels: tb, Unit: Count, Label: "index entries", Better: Lower, Show: JSONOnly}) // all of a table's indexes' leaf inserts, for budgets (budget/derived.go)
	LeafInserts          = def(Info{Name: "leaf_inserts", Levels: ix, Unit: Count, Label: "leaf inserts", Better: Lower, Finding: &FindingSpec{Level: LevelIndex, Verb: "writes", Noun: "index entries", Rank: 0}, Chart: "leaf", ChartLevel: LevelIndex})
	LeafDeletes          = def(Info{Name: "leaf_deletes", Levels: ix, Unit: Count, Label: "leaf deletes", Better: Lower, Finding: &FindingSpec{Level: LevelIndex, Verb: "deletes", Noun: "index entries", Rank: 3}})
	LeafUpdates          = def(Info{Name: "leaf_updates", Levels: ix, Unit: Count, Label: "leaf updates", Better: Lower})
	LeafPageSplits       = def(Info{Name: "leaf_page_splits", Levels: ix, Unit: Count, Label: "leaf page splits", Better: Lower, Finding: &FindingSpec{Level: LevelIndex, Verb: "has", Noun: "leaf page splits", Rank: 8, Secondary: true}})
	PageMerges           = def(Info{Name: "page_merges", Levels: dbIx, Unit: Count, Label: "page merges", Better: Lower, Show: WhenNonZero})
	LogBytes             = def(Info{Name: "log_bytes", Levels: every, Unit: Bytes, Label: "log bytes", Better: Lower, Finding: &FindingSpec{Level: LevelDatabase, Rank: 2}, Chart: "log", ChartLevel: LevelDatabase, Timeline: 1})
	LogBytesInScope      = def(Info{Name: "log_bytes_in_scope", Levels: db, Unit: Bytes, Label: "  of which the workload's objects", Better: Lower, Chart: "log", ChartLevel: LevelDatabase})
	LogBytesOtherObjects = def(Info{Name: "log_bytes_other_objects", Levels: db, Unit: Bytes, Label: "  of which other objects", Better: Neither, Show: WhenNonZero})
	LogBytesOther        = def(Info{Name: "log_bytes_other", Levels: db, Unit: Bytes, Label: "  of which no object (checkpoints, WAL switches)", Better: Neither})
	LogBytesStat         = def(Info{Name: "log_bytes_stat", Levels: db, Unit: Bytes, Label: "log bytes (statistics view)", Better: Lower})
	// check's migration window (check/applycost.go): how long applying the
	// migration took, and the size it added to the tables and indexes.
	ElapsedSeconds = def(Info{Name: "seconds", Levels: db, Unit: Seconds, Label: "seconds", Better: Lower, Show: JSONOnly, Total: true})
	SizeAddedBytes = def(Info{Name: "size_added_bytes", Levels: db, Unit: Bytes, Label: "size added", Better: Lower, Negative: true, Show: JSONOnly, Total: true})
	// The per-statement view's (pg_stat_statements) sum over the window's
	// statements, and the window's log that no statement accounts for.
	StatementLogBytes          = def(Info{Name: "statement_log_bytes", Levels: db, Unit: Bytes, Label: "log bytes of the statements", Better: Lower, Show: WhenNonZero})
	StatementLogBytesRemainder = def(Info{Name: "statement_log_bytes_remainder", Levels: db, Unit: Bytes, Label: "  log bytes of no statement", Better: Neither, Show: WhenNonZero})
	// The built-in workload's in-scope log split by operation, per
	// operation (per_operation only; measure/opcosts.go).
	OperationLogBytes     = def(Info{Name: "operation_log_bytes", Levels: db, Unit: Bytes, Label: "log bytes of the operation's own transactions", Better: Lower, Show: JSONOnly})
	OperationLogRecords   = def(Info{Name: "operation_log_records", Levels: db, Unit: Count, Label: "log records of the operation's own transactions", Better: Lower, Show: JSONOnly})
	LogRecords            = def(Info{Name: "log_records", Levels: every, Unit: Count, Label: "log records", Better: Lower})
	DdlStatements         = def(Info{Name: "ddl_statements", Levels: db, Unit: Count, Label: "DDL statements", Better: Neither, Show: JSONOnly})
	LogRecordsDecoded     = def(Info{Name: "log_records_decoded", Levels: db, Unit: Count, Label: "log records (decoded, whole cluster)", Better: Lower, Show: JSONOnly})
	LogBytesDecoded       = def(Info{Name: "log_bytes_decoded", Levels: db, Unit: Bytes, Label: "log bytes (decoded record lengths, whole cluster)", Better: Lower, Show: JSONOnly})
	FpiCount              = def(Info{Name: "fpi_count", Levels: every, Unit: Count, Label: "fpi count", Better: Lower, Show: WhenNonZero})
	FpiBytes              = def(Info{Name: "fpi_bytes", Levels: every, Unit: Bytes, Label: "fpi bytes", Better: Lower, Show: WhenNonZero, Chart: "log", ChartLevel: LevelDatabase})
	PageSplits            = def(Info{Name: "page_splits", Levels: db, Unit: Count, Label: "page splits", Better: Lower})
	TransactionsCommitted = def(Info{Name: "transactions_committed", Levels: db, Unit: Count, Label: "transactions committed", Better: Neither, Timeline: 7})
	BlockChanges          = def(Info{Name: "block_changes", Levels: every, Unit: Count, Label: "block changes", Better: Lower, Finding: &FindingSpec{Level: LevelIndex, Verb: "has", Noun: "index block changes", Rank: 10, Secondary: true}})
	PageLatchWaits        = def(Info{Name: "page_latch_waits", Levels: ix, Unit: Count, Label: "page latch waits", Better: Lower, Show: WhenNonZero, Finding: &FindingSpec{Level: LevelIndex, Verb: "has", Noun: "page latch waits", Rank: 9, Secondary: true}})
	PageLatchWaitMs       = def(Info{Name: "page_latch_wait_ms", Levels: ix, Unit: Millis, Label: "page latch wait time", Better: Lower, Show: WhenNonZero})
	RowLockWaits          = def(Info{Name: "row_lock_waits", Levels: tbIx, Unit: Count, Label: "row lock waits", Better: Lower, Show: WhenNonZero})
	SizeBytes             = def(Info{Name: "size_bytes", Levels: tbIx, Unit: Bytes, Label: "size bytes", Better: Lower, Negative: true})
	AutovacuumRuns        = def(Info{Name: "autovacuum_runs", Levels: tb, Unit: Count, Label: "autovacuum runs", Better: Neither, Show: WhenNonZero, Total: true})
	// run --vacuum: the VACUUM of the workload's tables after the variant's
	// window, measured in a window of its own. The dead rows are the
	// workload's, so these divide per operation like its own costs.
	VacuumLogBytes            = def(Info{Name: "vacuum_log_bytes", Levels: every, Unit: Bytes, Label: "vacuum: log bytes", Better: Lower})
	VacuumLogRecords          = def(Info{Name: "vacuum_log_records", Levels: every, Unit: Count, Label: "vacuum: log records", Better: Lower, Show: JSONOnly})
	VacuumFpiCount            = def(Info{Name: "vacuum_fpi_count", Levels: every, Unit: Count, Label: "vacuum: fpi count", Better: Lower, Show: WhenNonZero})
	VacuumFpiBytes            = def(Info{Name: "vacuum_fpi_bytes", Levels: every, Unit: Bytes, Label: "vacuum: fpi bytes", Better: Lower, Show: JSONOnly})
	VacuumPagesTouched        = def(Info{Name: "vacuum_pages_touched", Levels: tbIx, Unit: Pages, Label: "vacuum: pages touched", Better: Lower})
	VacuumPagesScanned        = def(Info{Name: "vacuum_pages_scanned", Levels: tb, Unit: Pages, Label: "vacuum: heap pages scanned", Better: Lower})
	VacuumPagesRemoved        = def(Info{Name: "vacuum_pages_removed", Levels: tb, Unit: Pages, Label: "vacuum: heap pages truncated", Better: Neither, Show: WhenNonZero})
	VacuumDeadRowsRemoved     = def(Info{Name: "vacuum_dead_rows_removed", Levels: tb, Unit: Count, Label: "vacuum: dead tuples pruned", Better: Lower})
	VacuumDeadItemsRemoved    = def(Info{Name: "vacuum_dead_items_removed", Levels: tb, Unit: Count, Label: "vacuum: dead line pointers freed", Better: Lower})
	VacuumBuffersDirtied      = def(Info{Name: "vacuum_buffers_dirtied", Levels: tb, Unit: Pages, Label: "vacuum: buffers dirtied", Better: Lower})
	VacuumIndexEntriesRemoved = def(Info{Name: "vacuum_index_entries_removed", Levels: ix, Unit: Count, Label: "vacuum: index entries removed", Better: Lower})
	VacuumIndexPagesDeleted   = def(Info{Name: "vacuum_index_pages_deleted", Levels: ix, Unit: Pages, Label: "vacuum: index pages deleted", Better: Lower, Show: WhenNonZero})
	VacuumBufferHits          = def(Info{Name: "vacuum_buffer_hits", Levels: tbIx, Unit: Count, Label: "vacuum: buffer hits", Better: Lower, Show: JSONOnly})
	VacuumBufferReads         = def(Info{Name: "vacuum_buffer_reads", Levels: tbIx, Unit: Count, Label: "vacuum: buffer reads", Better: Lower, Show: JSONOnly})
	// The refresh-token workload's own figures (workloads/refreshtoken):
	// coarse-boundary crossings from its schedule, and its expiration job,
	// measured in a window of its own after the variant's.
	CoarseBoundaryCrossings           = def(Info{Name: "coarse_boundary_crossings", Levels: db, Unit: Count, Label: "coarse-boundary crossings (schedule)", Better: Lower})
	CoarseBoundaryCrossingsPerRefresh = def(Info{Name: "coarse_boundary_crossings_per_refresh", Levels: db, Unit: Fraction, Label: "coarse-boundary crossings per refresh", Better: Lower})
	UserSessionWrites                 = def(Info{Name: "user_session_writes", Levels: db, Unit: Count, Label: "user-session writes (schedule)", Better: Neither, Show: JSONOnly})
	OfflineSessions                   = def(Info{Name: "offline_sessions", Levels: db, Unit: Count, Label: "offline sessions (schedule)", Better: Neither})
	RefreshExpirationIndexEntries     = def(Info{Name: "refresh_expiration_index_entries", Levels: db, Unit: Count, Label: "expiration-index entries per refresh", Better: Lower})
	ExpirationJobRuns                 = def(Info{Name: "expiration_job_runs", Levels: db, Unit: Count, Label: "expiration job: runs", Better: Neither})
	ExpirationJobBatches              = def(Info{Name: "expiration_job_batches", Levels: db, Unit: Count, Label: "expiration job: batches", Better: Lower})
	ExpirationJobSessionsDeleted      = def(Info{Name: "expiration_job_sessions_deleted", Levels: db, Unit: Count, Label: "expiration job: sessions deleted", Better: Neither})
	ExpirationJobRowsExamined         = def(Info{Name: "expiration_job_rows_examined", Levels: db, Unit: Count, Label: "expiration job: rows examined", Better: Lower})
	ExpirationJobMs                   = def(Info{Name: "expiration_job_ms", Levels: db, Unit: Millis, Label: "expiration job: duration", Better: Lower})
	ExpirationJobMsPerSession         = def(Info{Name: "expiration_job_ms_per_session", Levels: db, Unit: Millis, Label: "expiration job: duration per session", Better: Lower})
	ExpirationJobLogBytes             = def(Info{Name: "expiration_job_log_bytes", Levels: every, Unit: Bytes, Label: "expiration job: log bytes", Better: Lower})
	ExpirationJobLogBytesPerRun       = def(Info{Name: "expiration_job_log_bytes_per_run", Levels: db, Unit: Bytes, Label: "expiration job: log bytes per run", Better: Lower})
	ExpirationJobLogBytesPerSession   = def(Info{Name: "expiration_job_log_bytes_per_session", Levels: db, Unit: Bytes, Label: "expiration job: log bytes per session", Better: Lower})
	ExpirationJobLogRecords           = def(Info{Name: "expiration_job_log_records", Levels: every, Unit: Count, Label: "expiration job: log records", Better: Lower, Show: JSONOnly})
	ExpirationJobFpiCount             = def(Info{Name: "expiration_job_fpi_count", Levels: every, Unit: Count, Label: "expiration job: fpi count", Better: Lower, Show: WhenNonZero})
	ExpirationJobFpiBytes             = def(Info{Name: "expiration_job_fpi_bytes", Levels: every, Unit: Bytes, Label: "expiration job: fpi bytes", Better: Lower, Show: WhenNonZero})
	ExpirationJobRowsDeleted          = def(Info{Name: "expiration_job_rows_deleted", Levels: dbTb, Unit: Count, Label: "expiration job: rows deleted", Better: Neither})
	ExpirationJobLeafDeletes          = def(Info{Name: "expiration_job_leaf_deletes", Levels: ix, Unit: Count, Label: "expiration job: index entries removed", Better: Lower})
	ExpirationJobTuplesRead           = def(Info{Name: "expiration_job_tuples_read", Levels: ix, Unit: Count, Label: "expiration job: index entries read", Better: Lower, Show: WhenNonZero})
	ExpirationJobSeqScans             = def(Info{Name: "expiration_job_seq_scans", Levels: tb, Unit: Count, Label: "expiration job: sequential scans", Better: Lower, Show: WhenNonZero})
	ExpirationJobSeqTuplesRead        = def(Info{Name: "expiration_job_seq_tuples_read", Levels: tb, Unit: Count, Label: "expiration job: rows read by sequential scans", Better: Lower, Show: WhenNonZero})
	ExpirationJobPagesTouched         = def(Info{Name: "expiration_job_pages_touched", Levels: tbIx, Unit: Pages, Label: "expiration job: pages touched", Better: Lower})
	// --warmup-until-stable: the rounds the warm-up ran before the window
	// and the last one's log rate (measure/warmrounds.go).
	WarmupRounds        = def(Info{Name: "warmup_rounds", Levels: db, Unit: Count, Label: "warm-up rounds before the window", Better: Neither, Show: JSONOnly})
	WarmupSettled       = def(Info{Name: "warmup_settled", Levels: db, Unit: Count, Label: "warm-up: log rate settled (1) or not (0)", Better: Neither, Show: JSONOnly})
	WarmupLogBytesPerOp = def(Info{Name: "warmup_log_bytes_per_operation", Levels: db, Unit: Bytes, Label: "warm-up: log bytes per operation, last round", Better: Neither, Show: JSONOnly})
	// the rest, alphabetically
	AutoanalyzeRuns  = def(Info{Name: "autoanalyze_runs", Levels: tb, Unit: Count, Label: "autoanalyze runs", Better: Neither, Show: JSONOnly, Total: true})
	BinlogBytes      = def(Info{Name: "binlog_bytes", Levels: db, Unit: Bytes, Label: "binlog bytes", Better: Lower})
	BranchNodeSplits = def(Info{Name: "branch_node_splits", Levels: db, Unit: Count, Label: "branch node splits", Better: Lower})
	// Shared buffers: per relation (pg_statio_*) the accesses, hits and
	// reads; for the cluster (pg_stat_io, 16+) also the pages written and
	// the pages added, whoever wrote them.
	BufferExtends       = def(Info{Name: "buffer_extends", Levels: db, Unit: Pages, Label: "buffer pages extended (cluster)", Better: Lower, Show: WhenNonZero})
	BufferHits          = def(Info{Name: "buffer_hits", Levels: every, Unit: Count, Label: "buffer hits", Better: Neither, Show: JSONOnly})
	BufferReads         = def(Info{Name: "buffer_reads", Levels: every, Unit: Count, Label: "buffer reads", Better: Lower, Show: JSONOnly})
	BufferWrites        = def(Info{Name: "buffer_writes", Levels: db, Unit: Pages, Label: "buffer pages written (cluster)", Better: Lower, Show: WhenNonZero})
	BufferWritesBackend = def(Info{Name: "buffer_writes_backend", Levels: db, Unit: Pages, Label: "  of which by client backends", Better: Lower, Show: WhenNonZero})
	BufferBusyWaits     = def(Info{Name: "buffer_busy_waits", Levels: tbIx, Unit: Count, Label: "buffer busy waits", Better: Lower})
	Checkpoints         = def(Info{Name: "checkpoints", Levels: db, Unit: Count, Label: "checkpoints", Better: Neither})
	CommitStatements    = def(Info{Name: "commit_statements", Levels: db, Unit: Count, Label: "commit statements", Better: Neither})
	// Sorts and hashes that spilled to temporary files: an index build
	// larger than its memory writes there, not to the WAL.
	TempBytes = def(Info{Name: "temp_bytes", Levels: db, Unit: Bytes, Label: "temporary file bytes", Better: Lower, Show: WhenNonZero})
	Deadlocks = def(Info{Name: "deadlocks", Levels: db, Unit: Count, Label: "deadlocks", Better: Lower, Show: WhenNonZero})
	// InnoDB's change buffer (MySQL, MariaDB before 11.0): changes to cold
	// non-unique secondary-index pages merged in the window, and how much the
	// buffer grew. Merges are work deferred from earlier, not a cost or a gain.
	IbufMergedDeleteMarks  = def(Info{Name: "ibuf_merged_delete_marks", Levels: db, Unit: Count, Label: "change buffer: delete-marks merged", Better: Neither, Show: WhenNonZero})
	IbufMergedDeletes      = def(Info{Name: "ibuf_merged_deletes", Levels: db, Unit: Count, Label: "change buffer: purges merged", Better: Neither, Show: WhenNonZero})
	IbufMergedInserts      = def(Info{Name: "ibuf_merged_inserts", Levels: db, Unit: Count, Label: "change buffer: inserts merged", Better: Neither, Show: WhenNonZero})
	IbufMerges             = def(Info{Name: "ibuf_merges", Levels: db, Unit: Count, Label: "change buffer merges", Better: Neither, Show: WhenNonZero})
	IbufSizePages          = def(Info{Name: "ibuf_size_pages", Levels: db, Unit: Pages, Label: "change buffer growth", Better: Neither, Negative: true, Show: WhenNonZero})
	ItlWaits               = def(Info{Name: "itl_waits", Levels: tbIx, Unit: Count, Label: "itl waits", Better: Lower})
	LeafAllocations        = def(Info{Name: "leaf_allocations", Levels: ix, Unit: Count, Label: "leaf allocations", Better: Lower})
	LeafNode9010Splits     = def(Info{Name: "leaf_node_90_10_splits", Levels: db, Unit: Count, Label: "leaf node 90 10 splits", Better: Lower})
	LeafPages              = def(Info{Name: "leaf_pages", Levels: ix, Unit: Pages, Label: "leaf pages", Better: Lower, Negative: true})
	LogBytesFlushed        = def(Info{Name: "log_bytes_flushed", Levels: db, Unit: Bytes, Label: "log bytes flushed", Better: Lower})
	LogBytesWritten        = def(Info{Name: "log_bytes_written", Levels: db, Unit: Bytes, Label: "log bytes written", Better: Lower})
	LogFlushes             = def(Info{Name: "log_flushes", Levels: db, Unit: Count, Label: "log flushes", Better: Lower})
	LogPayloadBytes        = def(Info{Name: "log_payload_bytes", Levels: db, Unit: Bytes, Label: "log payload bytes", Better: Lower})
	LogRecordBytes         = def(Info{Name: "log_record_bytes", Levels: db, Unit: Bytes, Label: "log record bytes", Better: Lower})
	LogWriteStallMs        = def(Info{Name: "log_write_stall_ms", Levels: db, Unit: Millis, Label: "log write stall time", Better: Lower})
	LogWrites              = def(Info{Name: "log_writes", Levels: db, Unit: Count, Label: "log writes", Better: Lower})
	PageMergeAttempts      = def(Info{Name: "page_merge_attempts", Levels: db, Unit: Count, Label: "page merge attempts", Better: Lower})
	PagesTouched           = def(Info{Name: "pages_touched", Levels: tbIx, Unit: Pages, Label: "pages touched", Better: Lower})
	PhysicalWrites         = def(Info{Name: "physical_writes", Levels: tbIx, Unit: Count, Label: "physical writes", Better: Lower})
	RedoWastageBytes       = def(Info{Name: "redo_wastage_bytes", Levels: db, Unit: Bytes, Label: "redo wastage bytes", Better: Lower})
	RowLockWaitMs          = def(Info{Name: "row_lock_wait_ms", Levels: ix, Unit: Millis, Label: "row lock wait time", Better: Lower})
	Scans                  = def(Info{Name: "scans", Levels: ix, Unit: Count, Label: "scans", Better: Neither, Show: JSONOnly})
	SizePages              = def(Info{Name: "size_pages", Levels: ix, Unit: Pages, Label: "size pages", Better: Lower, Negative: true})
	TransactionsRolledBack = def(Info{Name: "transactions_rolled_back", Levels: db, Unit: Count, Label: "transactions rolled back", Better: Neither, Show: JSONOnly})
	SeqScans               = def(Info{Name: "seq_scans", Levels: tb, Unit: Count, Label: "sequential scans", Better: Neither, Show: JSONOnly})
	SeqTuplesRead          = def(Info{Name: "seq_tuples_read", Levels: tb, Unit: Count, Label: "rows read by sequential scans", Better: Neither, Show: JSONOnly})
	TuplesFetched          = def(Info{Name: "tuples_fetched", Levels: ix, Unit: Count, Label: "tuples fetched", Better: Neither, Show: JSONOnly})
	TuplesRead             = def(Info{Name: "tuples_read", Levels: ix, Unit: Count, Label: "tuples read", Better: Neither, Show: JSONOnly})
	UndoBytes              = def(Info{Name: "undo_bytes", Levels: db, Unit: Bytes, Label: "undo bytes", Better: Lower})
	VacuumRuns             = def(Info{Name: "vacuum_runs", Levels: tb, Unit: Count, Label: "vacuum runs", Better: Neither, Show: JSONOnly, Total: true})
	// The wait samplers' bookkeeping: how many samples the shares rest on,
	// and the mean number of the workload's sessions active in them.
	WaitSamples    = def(Info{Name: "wait_samples", Levels: db, Unit: Count, Label: "wait samples", Better: Neither, Total: true})
	ActiveSessions = def(Info{Name: "active_sessions", Levels: db, Unit: Count, Label: "active sessions (mean of the samples)", Better: Neither, Total: true})
	WalBuffersFull = def(Info{Name: "wal_buffers_full", Levels: db, Unit: Count, Label: "wal buffers full", Better: Lower, Show: JSONOnly})
	// Standbys and replication (catalogue_replicas.go has the per-standby
	// and per-slot families).
	ReplayedLogBytes     = def(Info{Name: "replayed_log_bytes", Levels: db, Unit: Bytes, Label: "log bytes replayed (standby)", Better: Lower})
	ReplayedLogRecords   = def(Info{Name: "replayed_log_records", Levels: db, Unit: Count, Label: "log records replayed (standby)", Better: Lower})
	ReplayLagMsP50       = def(Info{Name: "replay_lag_ms_p50", Levels: db, Unit: Millis, Label: "replay lag p50 (standby, sampled)", Better: Lower, Total: true})
	ReplayLagMsP95       = def(Info{Name: "replay_lag_ms_p95", Levels: db, Unit: Millis, Label: "replay lag p95 (standby, sampled)", Better: Lower, Total: true})
	ReplayLagMsMax       = def(Info{Name: "replay_lag_ms_max", Levels: db, Unit: Millis, Label: "replay lag max (standby, sampled)", Better: Lower, Total: true})
	ReplayBehindBytesMax = def(Info{Name: "replay_behind_bytes_max", Levels: db, Unit: Bytes, Label: "received, not replayed: max (standby, sampled)", Better: Lower, Total: true})
	Replicas             = def(Info{Name: "replicas", Levels: db, Unit: Count, Label: "standbys connected", Better: Neither, Total: true})
	ReplicasLogBytesSent = def(Info{Name: "replicas_log_bytes_sent", Levels: db, Unit: Bytes, Label: "log bytes sent to standbys", Better: Lower})
	ClusterLogBytes      = def(Info{Name: "cluster_log_bytes", Levels: db, Unit: Bytes, Label: "log bytes in the cluster (written + shipped)", Better: Lower})
	WalSegmentsArchived  = def(Info{Name: "wal_segments_archived", Levels: db, Unit: Count, Label: "wal segments archived", Better: Lower, Show: WhenNonZero})
	WalArchiveFailures   = def(Info{Name: "wal_archive_failures", Levels: db, Unit: Count, Label: "wal archive failures", Better: Lower, Show: WhenNonZero})
	// MySQL/MariaDB replicas: the primary's binary log received and applied
	// (positions in the primary's binlog), the transactions applied; on a
	// primary the semi-synchronous commits and their waits.
	RelayLogBytesReceived  = def(Info{Name: "relay_log_bytes_received", Levels: db, Unit: Bytes, Label: "binlog bytes received (replica)", Better: Lower})
	AppliedLogBytes        = def(Info{Name: "applied_log_bytes", Levels: db, Unit: Bytes, Label: "binlog bytes applied (replica)", Better: Lower})
	AppliedTransactions    = def(Info{Name: "applied_transactions", Levels: db, Unit: Count, Label: "transactions applied (replica)", Better: Neither})
	ReplicaLagMsP95        = def(Info{Name: "replica_lag_ms_p95", Levels: db, Unit: Millis, Label: "apply lag p95 (replica, Seconds_Behind_Master sampled)", Better: Lower, Total: true})
	ReplicaLagMsMax        = def(Info{Name: "replica_lag_ms_max", Levels: db, Unit: Millis, Label: "apply lag max (replica, Seconds_Behind_Master sampled)", Better: Lower, Total: true})
	SemisyncAckedCommits   = def(Info{Name: "semisync_acked_commits", Levels: db, Unit: Count, Label: "commits acknowledged by a semi-sync replica", Better: Neither, Show: WhenNonZero})
	SemisyncUnackedCommits = def(Info{Name: "semisync_unacked_commits", Levels: db, Unit: Count, Label: "commits not acknowledged (semi-sync timed out)", Better: Lower, Show: WhenNonZero})
	SemisyncWaits          = def(Info{Name: "semisync_waits", Levels: db, Unit: Count, Label: "commit waits for a semi-sync replica", Better: Lower, Show: WhenNonZero})
	SemisyncWaitMs         = def(Info{Name: "semisync_wait_ms", Levels: db, Unit: Millis, Label: "commit wait time for a semi-sync replica", Better: Lower, Show: WhenNonZero})
	// MariaDB Galera: what this node replicated to the cluster and received
	// from it (write-sets and their bytes), the conflicts certification and
	// brute-force aborts resolved, and flow control (the cluster paused for a
	// node that fell behind).
	GaleraClusterSize       = def(Info{Name: "galera_cluster_size", Levels: db, Unit: Count, Label: "galera nodes in the cluster", Better: Neither, Total: true, Show: JSONOnly})
	WritesetsReplicated     = def(Info{Name: "writesets_replicated", Levels: db, Unit: Count, Label: "write-sets replicated (galera)", Better: Neither})
	WritesetBytesReplicated = def(Info{Name: "writeset_bytes_replicated", Levels: db, Unit: Bytes, Label: "write-set bytes replicated (galera)", Better: Lower})
	// wsrep_received counts every action the group delivered, not only the
	// other nodes' write-sets: the cluster's commit-cut messages (8 bytes
	// each) too, so the names say "actions".
	ActionsReceived     = def(Info{Name: "galera_actions_received", Levels: db, Unit: Count, Label: "write-sets and cluster messages received (galera)", Better: Neither})
	ActionBytesReceived = def(Info{Name: "galera_action_bytes_received", Levels: db, Unit: Bytes, Label: "bytes of write-sets and cluster messages received (galera)", Better: Lower})
	CertFailures        = def(Info{Name: "cert_failures", Levels: db, Unit: Count, Label: "certification failures (galera)", Better: Lower, Show: WhenNonZero})
	BFAborts            = def(Info{Name: "bf_aborts", Levels: db, Unit: Count, Label: "brute-force aborts (galera)", Better: Lower, Show: WhenNonZero})
	FlowControlPausedMs = def(Info{Name: "flow_control_paused_ms", Levels: db, Unit: Millis, Label: "flow control paused (galera)", Better: Lower, Show: WhenNonZero})
	FlowControlSent     = def(Info{Name: "flow_control_sent", Levels: db, Unit: Count, Label: "flow control pauses sent (galera)", Better: Lower, Show: WhenNonZero})
	FlowControlReceived = def(Info{Name: "flow_control_received", Levels: db, Unit: Count, Label: "flow control pauses received (galera)", Better: Lower, Show: WhenNonZero})
)
