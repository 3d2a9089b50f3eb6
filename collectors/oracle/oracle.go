package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.Register(ora.Name, NewSet()) }

// NewSet returns the Oracle collectors in the order a snapshot reads them.
func NewSet() *collectors.Set {
	return &collectors.Set{
		Sources: []collectors.Source{AllObjects{}, VSegmentStatistics{}, VSysstat{}, VSystemEvent{}, VSqlstats{},
			VArchivedLog{}, VArchiveDestStatus{}, VRecoveryProgress{}},
		Interval: []collectors.IntervalCollector{ArchivedLogShipped{}},
		// DeriveStandby first: no deriver may compute from a standby's zeros.
		Derive:     []collectors.Deriver{DeriveStandby, DeriveNoLeafInserts},
		Samplers:   []collectors.Sampler{VSessionEvent{}, VDataguardStats{}},
		SnapshotTx: snapshotTx,
		// No savepoints: a failed query does not abort an Oracle transaction.
	}
}

// snapshotTx opens a transaction and makes it READ ONLY on the server: go-ora
// refuses sql.TxOptions{ReadOnly: true}, but SET TRANSACTION READ ONLY as its
// first statement gives the real thing (any write would fail with ORA-01456).
func snapshotTx(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.Tx, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := queries.Exec(ctx, tx, ora.Name, "snapshot_read_only", s.VersionNum); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// ownerArg is the scope's schemas as ",A,B," in upper case (Oracle folds
// unquoted names), or "" (NULL to Oracle) for every schema.
func ownerArg(sc collectors.Scope) string {
	if len(sc.Schemas) == 0 {
		return ""
	}
	return "," + strings.ToUpper(strings.Join(sc.Schemas, ",")) + ","
}

// startIdentity ties instance-wide counters to the instance's start.
func startIdentity(s dialects.Server) string {
	if s.StartedAt.IsZero() {
		return ""
	}
	return "started=" + s.StartedAt.UTC().Format(time.RFC3339)
}

func unsupportedVersion(s dialects.Server) error {
	if ora.SupportedVersion(s.VersionNum) {
		return nil
	}
	return fmt.Errorf("%w: Oracle %s is older than 12.2", dialects.ErrUnsupported, s.Version)
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// slug turns an event name into a metric name: "enq: TX - index contention"
// -> "enq_tx_index_contention".
func slug(name string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(name), "_"), "_")
}

// DeriveNoLeafInserts states, per index, that Oracle counts no leaf inserts:
// block_changes is the nearest proxy and is reported under its own name, never
// as leaf_inserts (a block change may be an insert, a delete mark, a split, a
// cleanout...).
func DeriveNoLeafInserts(d *collectors.Delta) {
	for _, o := range d.Objects {
		if o.Level != collectors.Index {
			continue
		}
		d.Put(collectors.NewKey(collectors.Index, o.FQN(), result.LeafInserts), result.NA("V$SEGMENT_STATISTICS",
			"Oracle keeps no per-index leaf insert counter; block_changes ('db block changes' of the index segment) is the nearest proxy and is not an insert count"))
	}
}
