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
// cannot prune and is not HOT. The other database is "postgres", the one
// every cluster has for connecting to; never template1: CREATE DATABASE
// copies from it and fails while anyone is connected to it, anyone's and
// check's own copies. When the measured database is "postgres", or that
// database does not accept the login, it returns nil: the measured pool,
// and a note that says what that costs.
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
	for _, other := range []string{"postgres"} {
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
	why := "the measured database is postgres, the one other database writeamp connects to"
	if len(errs) > 0 {
		why = fmt.Sprintf("the postgres database did not accept the login: %v", errors.Join(errs...))
	}
	return nil, "waits sampled from the measured database itself (" + why + "): each sample's snapshot may briefly keep dead row versions from being pruned", nil
}

// Start reads pg_stat_activity every t.Every (10 ms) on a connection of db
// (OpenSampler's) until Stop, one statement at a time outside any
// transaction. When pg_wait_sampling is created there, its profile is read
// at the window's start and end and its counts are the shares (see
// profileShares); the loop still runs for what the profile cannot say.
func (PgStatActivity) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	text, err := collectors.SQL(pg.Name, "pg_stat_activity_sample", s)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	stmt, err := conn.PrepareContext(ctx, text)
	if err != nil {
		conn.Close()
		return nil, err
	}
	byPid := t.Sessions != nil
	wantQuery := t.Operation != nil && !byPid
	seen := &pidSet{m: map[string]bool{}}
	read := func(ctx context.Context) ([]collectors.SessionState, error) {
		rows, err := stmt.QueryContext(ctx, t.ApplicationName, wantQuery, s.Database, byPid)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var states []collectors.SessionState
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
			if !byPid {
				seen.add(pid)
			}
			states = append(states, st)
		}
		return states, rows.Err()
	}
	source := "pg_stat_activity.wait_event_type/wait_event"
	if !byPid && t.ApplicationName == "" {
		source += " of every other session of the database but writeamp's own"
	}
	prof := openProfile(ctx, conn, s)
	a := &activitySampling{ctx: ctx, prof: prof, close: func() {
		stmt.Close()
		conn.Close()
	}}
	if byPid {
		a.ours = func(pid string) bool { _, ok := t.Sessions(pid); return ok }
		a.whose = "the workload's sessions by pid"
	} else {
		// The profile is per pid only: a wrapped command's sessions are
		// the pids pg_stat_activity saw active in the window.
		a.ours = seen.has
		a.whose = "the sessions pg_stat_activity saw active in the window (one never seen active is left out)"
	}
	a.shares = collectors.StartShares(ctx, t.Every, source, read, nil)
	if !pg.PerDatabaseHorizon(s) {
		// Measured (TestEveryPostgresMajor, "the pruning horizon"): no
		// statement reads pg_stat_activity without a snapshot, and on 13
		// each reading's holds the cluster's horizon while it runs.
		a.shares.Note = "on PostgreSQL 13 each reading's snapshot, though taken in another database, holds back the cluster-wide pruning horizon while it runs (for the share of the window the source calls busy), so an update of the workload may then not be HOT; --waits=false avoids it"
	}
	return a, nil
}
