package mysql

import (
	"context"
	"database/sql"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
)

func init() { collectors.Register(my.Name, NewSet()) }

// NewSet returns the MySQL/MariaDB collectors in the order a snapshot reads
// them. No savepoints: a failing statement does not abort a MySQL transaction.
func NewSet() *collectors.Set {
	return &collectors.Set{
		Sources: []collectors.Source{
			GlobalStatus{}, Statistics{}, InnodbMetrics{}, FileSummaryByEventName{}, InnodbIndexStats{},
			EventsWaitsSummaryGlobalByEventName{}, InnodbChangeBuffer{},
			TableIOWaitsSummaryByTable{}, TableStatistics{}, EventsStatementsSummaryByDigest{},
			ReplicaStatus{}, ReplicaHosts{}, Semisync{},
		},
		// ReplicaApplied corrects a replica's row counts before the derivers use them.
		Interval:   []collectors.IntervalCollector{InnodbBufferPage{}, ReplicaApplied{}},
		Derive:     []collectors.Deriver{DeriveUnavailable, DeriveLeafPages, DeriveIndexWrites, DeriveChangeBufferNote, DeriveBinlogDDL, DeriveBinlogShipped},
		Samplers:   []collectors.Sampler{Processlist{}, ReplicaLag{}},
		SnapshotTx: snapshotTx,
		NoVacuum: "InnoDB has no VACUUM to run: purge removes the delete-marked index entries and old row versions in the background, " +
			"and the window's after snapshot already waits for it (history list length back to where it started), so purge's redo is in the window's log bytes; there is no vacuum_ figure to add",
	}
}

// snapshotTx opens START TRANSACTION READ ONLY: the observer writes nothing,
// and the server refuses if a collector ever tried.
func snapshotTx(ctx context.Context, db *sql.DB, _ dialects.Server) (*sql.Tx, error) {
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// schemaArgs passes the scope's databases, comma-joined, to the queries'
// FIND_IN_SET filter (an empty list means every user database); the Go side still applies Scope.InScope to
// every row.
func schemaArgs(sc collectors.Scope) []any {
	l := strings.Join(sc.Schemas, ",")
	return []any{l, l}
}
