package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
)

// OpenDatabase connects like Open, to another database of the same server
// (check --clone connects to its copies, and to a maintenance database to
// make them); opts are Open's.
func (d Dialect) OpenDatabase(ctx context.Context, dsn, database string, opts ...dialects.OpenOption) (*sql.DB, error) {
	cfg, err := Config(dsn, opts...)
	if err != nil {
		return nil, err
	}
	cfg.Database = database
	db := stdlib.OpenDB(*cfg)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: cannot connect to database %s on %s: %w", database, d.Redact(dsn), err)
	}
	return db, nil
}

// WithDatabase is dsn naming another database: a URL's path is replaced, a
// key=value string gets a dbname that overrides its own (libpq and pgx take
// the last value of a repeated key); "" (the PG* environment) stays "".
func WithDatabase(dsn, database string) string {
	if dsn == "" {
		return ""
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || strings.HasPrefix(dsn, "pg://") {
		if u, err := url.Parse(dsn); err == nil {
			u.Path, u.RawPath = "/"+database, ""
			return u.String()
		}
	}
	return dsn + " dbname='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(database) + "'"
}
