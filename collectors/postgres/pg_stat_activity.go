package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// PgStatActivity samples what the workload's sessions wait on. PostgreSQL
// keeps no cumulative wait counters per session (pg_wait_sampling does, as
// an extension that must be preloaded); pg_stat_activity shows the wait of
// this instant, so reading it every 10 ms from a separate connection gives
// each wait's share of the sessions' active time. A read is one catalog
// query outside any transaction: it writes no WAL.
type PgStatActivity struct{}

func (PgStatActivity) Name() string                   { return "pg_stat_activity" }
func (PgStatActivity) Supports(dialects.Server) error { return nil }

// OpenSampler connects, as the measured pool's login, to another database
// of the cluster: pg_stat_activity is cluster-wide, and a statement's
// snapshot there counts only for shared catalogs, never in the measured
// database's xmin horizon. Read from the measured database, each sample's
// snapshot would keep the workload's dead row versions for its few
// milliseconds, and an update that finds its page full while one is held
// cannot prune and is not HOT. "postgres" is the usual other database;
// when it is the measured one, template1 (nothing is created or written
// there; a CREATE DATABASE from template1 waits while it is connected).
// When neither accepts the login, it returns nil: the measured pool, and a
// note that says what that costs.
func (PgStatActivity) OpenSampler(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.DB, string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	var base *stdlib.Conn
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("pg_stat_activity: not a pgx connection (%T)", dc)
		}
		base = c
		return nil
	})
	if err != nil {
		conn.Close()
		return nil, "", err
	}
	cfg := base.Conn().Config() // a copy
	conn.Close()
	var errs []error
	for _, other := range []string{"postgres", "template1"} {
		if other == cfg.Database {
			continue
		}
		c := cfg.Copy()
		c.Database = other
		side := stdlib.OpenDB(*c)
		side.SetMaxOpenConns(1)
		if err := dialects.PingWithin(ctx, side, pg.ConnectTimeout); err != nil {
			side.Close()
			errs = append(errs, fmt.Errorf("%s: %w", other, err))
			continue
		}
		return side, "", nil
	}
	return nil, fmt.Sprintf("sampled from the measured database itself (no other database of the cluster accepted the login: %v): each sample's snapshot may briefly keep dead row versions from being pruned", errors.Join(errs...)), nil
}

// Start reads pg_stat_activity every t.Every (10 ms) on a connection of db
// (OpenSampler's) until Stop, one statement at a time outside any
// transaction.
func (PgStatActivity) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	stmt, err := conn.PrepareContext(ctx, q("pg_stat_activity_sample", s))
	if err != nil {
		conn.Close()
		return nil, err
	}
	byPid := t.Sessions != nil
	wantQuery := t.Operation != nil && !byPid
	read := func(ctx context.Context) ([]collectors.SessionState, error) {
		rows, err := stmt.QueryContext(ctx, t.ApplicationName, wantQuery, s.Database, byPid)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var seen []collectors.SessionState
		for rows.Next() {
			var pid, query string
			var st collectors.SessionState
			if err := rows.Scan(&pid, &st.Class, &st.Event, &query); err != nil {
				return nil, err
			}
			if st.Class == "" {
				st.Class, st.Event = "CPU", "running"
			}
			switch {
			case byPid:
				op, ours := t.Sessions(pid)
				if !ours {
					continue
				}
				st.Op = op
			case wantQuery:
				st.Op = t.Operation(query)
			}
			seen = append(seen, st)
		}
		return seen, rows.Err()
	}
	source := "pg_stat_activity.wait_event_type/wait_event"
	if !byPid && t.ApplicationName == "" {
		source += " of every other session of the database but writeamp's own"
	}
	return collectors.StartShares(ctx, t.Every, source, read, func() {
		stmt.Close()
		conn.Close()
	}), nil
}
