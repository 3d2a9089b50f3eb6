package postgres

import (
	"context"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// WalLSN reads the WAL insert position: the difference of two readings is
// every byte of WAL the cluster wrote in between, from every session.
type WalLSN struct{}

// MarkLSN is the snapshot mark holding the insert LSN, for pg_walinspect.
const MarkLSN = "wal_insert_lsn"

func (WalLSN) Name() string { return "wal_lsn" }

func (WalLSN) Supports(s dialects.Server) error {
	if !s.Has(pg.CapPrimary) {
		return s.Unsupported(pg.CapPrimary)
	}
	return nil
}

func (WalLSN) read(ctx context.Context, qr dialects.Querier, s dialects.Server) (string, float64, error) {
	var lsn, bytes string
	if err := queries.QueryRow(ctx, qr, pg.Name, "wal_lsn", s.VersionNum).Scan(&lsn, &bytes); err != nil {
		return "", 0, err
	}
	v, err := strconv.ParseFloat(bytes, 64)
	return lsn, v, err
}

func (w WalLSN) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	lsn, _, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	return map[string]string{MarkLSN: lsn}, nil
}

func (w WalLSN) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	_, v, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	c := exact(collectors.DB, "", result.LogBytes, v, "pg_current_wal_insert_lsn() difference (whole cluster, all sessions; includes WAL page headers and record alignment)", "")
	return []collectors.Counter{c}, nil
}
