package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
)

func init() { collectors.Register(ms.Name, NewSet()) }

// NewSet returns the SQL Server collectors in the order a snapshot reads them.
func NewSet() *collectors.Set {
	return &collectors.Set{
		Sources: []collectors.Source{
			FnDblogMark{}, SysDmHadrDatabaseReplicaStates{}, SysDmDbResourceStatsMark{},
			SysIndexes{}, SysDmDbIndexOperationalStats{}, SysDmIoVirtualFileStats{},
			SysDmOsPerformanceCounters{}, SysDmOsWaitStats{}, SysDmExecQueryStats{},
		},
		Interval:   []collectors.IntervalCollector{FnDblog{}, HadrShipped{}, SysDmDbResourceStats{}},
		Samplers:   []collectors.Sampler{SysDmExecSessionWaitStats{}, HadrLag{}},
		Derive:     []collectors.Deriver{DeriveSecondary, DeriveLogBytesUnavailable},
		SnapshotTx: snapshotTx,
		// No savepoints: a failed SELECT does not doom a SQL Server
		// transaction (XACT_ABORT is off), so the next collector runs on.
	}
}

// snapshotTx opens a plain transaction: go-mssqldb refuses
// sql.TxOptions{ReadOnly: true} ("read-only transactions are not
// supported") and SQL Server has no read-only transaction mode. The observer
// stays read-only by what it sends (only the SELECTs of this package) and
// by rolling back; a transaction that writes nothing gets no log record, so
// the snapshot adds nothing to the log it measures.
func snapshotTx(ctx context.Context, db *sql.DB, _ dialects.Server) (*sql.Tx, error) {
	return db.BeginTx(ctx, nil)
}

// startIdentity ties a counter to the server's start: the DMVs restart from
// zero with the instance (and on a failover to another replica).
func startIdentity(s dialects.Server) string {
	if s.StartedAt.IsZero() {
		return ""
	}
	return "started=" + s.StartedAt.UTC().Format(time.RFC3339)
}

// waitMetric is "waits.<wait type>" in lower case: the vocabulary's names.
func waitMetric(waitType string) string {
	return "waits." + strings.ToLower(strings.TrimSpace(waitType))
}

// need turns a capability the probe found missing into the privilege error.
func need(s dialects.Server, capability string, sc ms.Scope) error {
	return ms.Need(s, capability, sc)
}

func unsupportedVersion(s dialects.Server) error {
	if ms.SupportedVersion(s.VersionNum) {
		return nil
	}
	return fmt.Errorf("%w: SQL Server %s is older than 2016", dialects.ErrUnsupported, s.Version)
}
