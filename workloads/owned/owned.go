package owned

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// ErrNotOwned is returned when an object with the workload's name exists but
// was not created by writeamp: it is left alone.
var ErrNotOwned = errors.New("exists but was not created by writeamp; refusing to touch it")

// Schemas is one run's schemas of one workload, one at a time.
type Schemas struct {
	Prefix string // every schema of the workload starts with it ("writeamp_rt_")
	RunID  string // this run's part of the names
	keep   bool
	t      dialects.Target
	schema string
	// created: this process created the current schema; lockConn holds its
	// lock until Drop.
	created  bool
	lockConn *sql.Conn
}

// New returns the schemas of a run with its own random run id.
func New(prefix string) *Schemas {
	b := make([]byte, 4)
	rand.Read(b)
	return &Schemas{Prefix: prefix, RunID: hex.EncodeToString(b)}
}

// Keep makes Create mark the schemas as kept (--keep): Drop then releases
// them without dropping them, and no later run drops them; `writeamp clean
// --drop` does, on request.
func (o *Schemas) Keep() { o.keep = true }

// Kept reports whether the schemas are kept.
func (o *Schemas) Kept() bool { return o.keep }

// Use makes the variant's schema the current one, on t, and returns its name.
func (o *Schemas) Use(t dialects.Target, variant string) string {
	o.t, o.schema = t, o.Prefix+o.RunID+"_"+variant
	return o.schema
}

// Current is the current schema ("" before Use).
func (o *Schemas) Current() string { return o.schema }

// SQL is an owned_* block of the dialect for the current schema.
func (o *Schemas) SQL(name string) (string, error) {
	t, err := queries.Get(o.t.Server.Dialect, name, o.t.Server.VersionNum)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(t, "{{schema}}", o.schema), nil
}

func (o *Schemas) mustSQL(name string) string {
	t, err := o.SQL(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Create takes the current schema's lock, creates the schema and its owner
// marker, and runs build on the same connection to fill it (the workload's
// tables). Any failure drops what was created and lets the lock go.
func (o *Schemas) Create(ctx context.Context, build func(ctx context.Context, conn *sql.Conn) error) (err error) {
	// The schema's lock is taken before the schema exists and held until
	// Drop: no other run can see the schema without its lock being held.
	o.created = false
	if err := o.hold(ctx); err != nil {
		return err
	}
	err = o.OnConn(ctx, func(conn *sql.Conn) error { return o.create(ctx, conn, build) })
	if err != nil {
		if o.created {
			// The drop on Create's own connection failed (the session was
			// killed, say): try once more on a new one.
			cctx := context.WithoutCancel(ctx)
			if derr := o.OnConn(cctx, func(c *sql.Conn) error { return o.drop(cctx, c) }); derr == nil {
				err = fmt.Errorf("%w (schema %s dropped on a new connection)", err, o.schema)
			} else {
				err = fmt.Errorf("%w; schema %s was left behind: the next writeamp run on this database drops it, or `writeamp clean --drop`", err, o.schema)
			}
		}
		o.release(context.WithoutCancel(ctx))
	}
	return err
}

// OnConn runs f on one connection that publishes its statistics when done
// (PostgreSQL 15+): otherwise a pooled connection's WAL counts from DDL
// would be published late, inside the next measured window.
func (o *Schemas) OnConn(ctx context.Context, f func(*sql.Conn) error) error {
	conn, err := o.t.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	ferr := f(conn)
	if err := o.t.EndSession(context.WithoutCancel(ctx), conn); err != nil && ferr == nil {
		ferr = err
	}
	return ferr
}

func (o *Schemas) create(ctx context.Context, conn *sql.Conn, build func(context.Context, *sql.Conn) error) (err error) {
	existing, err := o.list(ctx, conn)
	if err != nil {
		return fmt.Errorf("list existing writeamp schemas: %w", err)
	}
	for _, e := range existing {
		if strings.EqualFold(e, o.schema) {
			return fmt.Errorf("schema %s %w", o.schema, ErrNotOwned)
		}
	}
	if _, err := conn.ExecContext(ctx, o.mustSQL("owned_create_schema")); err != nil {
		return fmt.Errorf("create schema %s: %w", o.schema, o.Explain(err))
	}
	o.created = true
	defer func() {
		if err != nil {
			if cerr := o.drop(context.WithoutCancel(ctx), conn); cerr != nil {
				err = fmt.Errorf("%w (and cleanup failed: %v)", err, cerr) //nolint:errorlint // the first error is the cause callers classify; the cleanup's failure after it is reported, not matched
			}
		}
	}()
	if _, err := conn.ExecContext(ctx, o.mustSQL("owned_marker_create")); err != nil {
		return fmt.Errorf("create owner marker: %w", err)
	}
	if _, err := conn.ExecContext(ctx, o.mustSQL("owned_marker_insert"), o.RunID, os.Getpid(), hostname(), time.Now().UTC().Format(time.RFC3339), lockSession, boolInt(o.keep)); err != nil {
		return fmt.Errorf("write owner marker: %w", err)
	}
	return build(ctx, conn)
}

// Drop drops the current schema, which this run created and whose lock it
// holds, and gives the lock up; a kept schema is only released.
func (o *Schemas) Drop(ctx context.Context) error {
	if o.schema == "" {
		return nil
	}
	defer o.release(ctx)
	if o.keep {
		return nil
	}
	err := o.OnConn(ctx, func(conn *sql.Conn) error { return o.drop(ctx, conn) })
	if err != nil && o.created {
		return fmt.Errorf("%w; schema %s was left behind: the next writeamp run on this database drops it, or `writeamp clean --drop`", err, o.schema)
	}
	return err
}

// drop removes the current schema when this process created it, or when its
// marker names this run (a half-made schema is this run's by the first).
func (o *Schemas) drop(ctx context.Context, db dialects.Querier) error {
	if !o.created {
		m, err := o.readMarker(ctx, db)
		if err != nil || m.RunID != o.RunID {
			if err == nil {
				err = fmt.Errorf("marker names run %s", m.RunID)
			}
			return fmt.Errorf("schema %s not dropped: cannot confirm writeamp created it in this run (%w)", o.schema, err)
		}
	}
	if _, err := db.ExecContext(ctx, o.mustSQL("owned_drop_schema")); err != nil {
		return fmt.Errorf("drop schema %s: %w", o.schema, err)
	}
	o.created = false
	return nil
}

// list is every schema of this workload's prefix (the dialect's query lists
// every writeamp_ schema; names compare case-insensitively, Oracle's are
// upper case).
func (o *Schemas) list(ctx context.Context, db dialects.Querier) ([]string, error) {
	rows, err := db.QueryContext(ctx, o.mustSQL("owned_list_schemas"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(o.Prefix)) {
			out = append(out, n)
		}
	}
	return out, rows.Err()
}

func hostname() string { h, _ := os.Hostname(); return h }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
