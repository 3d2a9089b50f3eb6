package postgres

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.Register(pg.Name, NewSet()) }

// NewSet returns the PostgreSQL collectors in the order a snapshot reads them.
func NewSet() *collectors.Set {
	return &collectors.Set{
		Sources: []collectors.Source{
			WalLSN{}, WalReplay{}, PgClass{}, PgStatRelations{}, PgStatWAL{}, PgStatIO{}, PgStatDatabase{}, PgStatCheckpointer{}, PgStatStatements{},
			PgStatReplication{}, PgStatArchiver{}, PgStatReplicationSlots{},
		},
		Interval:   []collectors.IntervalCollector{PgWAL{}, ReplicationShipped{}},
		Derive:     []collectors.Deriver{DeriveStandby, DeriveTables, DeriveLeafInserts, DeriveCheckpoints, CrossCheckStatWAL, DeriveCluster, DeriveReceived},
		Samplers:   []collectors.Sampler{PgStatActivity{}, ReplicationLag{}},
		SnapshotTx: snapshotTx,
		Savepoint:  "SAVEPOINT writeamp_collector",
		RollbackTo: "ROLLBACK TO SAVEPOINT writeamp_collector",
		Vacuum:     Vacuum{},
	}
}

// snapshotTx opens READ ONLY and, on 15+, asks for one consistent statistics
// snapshot across all views for the whole transaction.
func snapshotTx(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.Tx, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	if s.Has(pg.CapFetchConsistency) {
		if _, err := queries.Exec(ctx, tx, pg.Name, "snapshot_consistency", s.VersionNum); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	return tx, nil
}

// schemaArg passes the scope's schemas; nil means every user schema.
func schemaArg(sc collectors.Scope) any {
	if len(sc.Schemas) == 0 {
		return nil
	}
	return sc.Schemas
}

func exact(level collectors.Level, obj string, metric *result.Info, v float64, source, id string) collectors.Counter {
	return collectors.NewCounter(level, obj, metric, v, result.Exact, source, id)
}

// withReset stamps counters with their stats_reset time, so a reset inside
// the window shows as one even when the counter has since grown again.
func withReset(reset string, cs []collectors.Counter) []collectors.Counter {
	for i := range cs {
		cs[i].Reset = reset
	}
	return cs
}

// resetMark is a stats_reset value as a counter's Reset. From 15 on it is NULL
// until the first reset ("never"), so a first reset inside the window still
// shows; 13/14 set it when the database's statistics entry is created, and
// NULL there means no entry yet ("": counted from zero, not a reset).
func resetMark(reset string, s dialects.Server) string {
	if reset == "" && s.VersionNum >= 150000 {
		return "never"
	}
	return reset
}
