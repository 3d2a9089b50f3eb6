package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatArchiver reads WAL archiving: segments archived and failed attempts.
// Every segment the window fills is also copied to the archive, which is a
// cost of its own on a cluster that archives (archive_mode on).
type PgStatArchiver struct{}

func (PgStatArchiver) Name() string                   { return "pg_stat_archiver" }
func (PgStatArchiver) Supports(dialects.Server) error { return nil }

func (PgStatArchiver) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var archived, failed int64
	var mode string
	if err := queries.QueryRow(ctx, qr, pg.Name, "pg_stat_archiver", s.VersionNum).Scan(&archived, &failed, &mode); err != nil {
		return nil, err
	}
	if mode == "off" {
		return nil, nil // nothing is archived, so there is no cost to count
	}
	return []collectors.Counter{
		exact(collectors.DB, "", result.WalSegmentsArchived, float64(archived), "pg_stat_archiver.archived_count", ""),
		exact(collectors.DB, "", result.WalArchiveFailures, float64(failed), "pg_stat_archiver.failed_count", ""),
	}, nil
}

// PgStatReplicationSlots reads logical decoding's work per slot (14+): the
// bytes decoded for the subscriber, and those spilled to disk or streamed
// because a transaction outgrew logical_decoding_work_mem.
type PgStatReplicationSlots struct{}

func (PgStatReplicationSlots) Name() string { return "pg_stat_replication_slots" }

func (PgStatReplicationSlots) Supports(s dialects.Server) error {
	if s.VersionNum < 140000 {
		return fmt.Errorf("%w: pg_stat_replication_slots needs PostgreSQL 14 or later", dialects.ErrUnsupported)
	}
	return nil
}

func (PgStatReplicationSlots) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, pg.Name, "pg_stat_replication_slots", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collectors.Counter
	for rows.Next() {
		var name string
		var spill, spillN, stream, total, txns int64
		if err := rows.Scan(&name, &spill, &spillN, &stream, &total, &txns); err != nil {
			return nil, err
		}
		// The slot's name is its identity: a slot dropped and made again
		// inside the window restarts its counters. The names are the
		// result.SlotPrefix family's.
		slotCounter := func(metric string, v int64, src string) collectors.Counter {
			return exact(collectors.DB, "", result.Family(result.SlotPrefix+name+"."+metric), float64(v), src, name)
		}
		out = append(out,
			slotCounter("decoded_bytes", total, "pg_stat_replication_slots.total_bytes (logical decoding of slot "+name+")"),
			slotCounter("spill_bytes", spill, "pg_stat_replication_slots.spill_bytes"),
			slotCounter("spill_count", spillN, "pg_stat_replication_slots.spill_count"),
			slotCounter("stream_bytes", stream, "pg_stat_replication_slots.stream_bytes"),
			slotCounter("decoded_txns", txns, "pg_stat_replication_slots.total_txns"))
	}
	return out, rows.Err()
}
