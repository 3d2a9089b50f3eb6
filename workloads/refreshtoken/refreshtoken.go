// Package refreshtoken is the built-in workload that models Keycloak's
// persistent user sessions: logins insert a user and a client session, token
// refreshes lock and update both (the expiration-index cost of PR #51904),
// logouts lock and delete them. Variant "baseline" is Keycloak 26.7's schema,
// "coarse" 26.8's. README.md in this directory names the Keycloak class or
// changelog each statement and index comes from.
package refreshtoken

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"github.com/writeamp/writeamp/sqlparse"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads"
)

// Name is the workload's registry name.
const Name = "refresh-token"

// Variants in the order a default run measures them.
var Variants = []string{"baseline", "coarse"}

// Tables the workload writes: the collectors' scope.
var Tables = []string{"offline_user_session", "offline_client_session"}

const (
	realmID     = "b2a3c4d5-0000-4000-8000-00000000beef"
	clientID    = "c0ffee00-0000-4000-8000-000000000001"
	offlineFlag = "0" // regular sessions, persisted since Keycloak 25
)

// Workload is one refresh-token run; Prepare/Run/Cleanup per variant.
type Workload struct {
	P Params
	// NoPipeline sends statements one at a time, waiting for each.
	NoPipeline bool
	RunID      string
	// AfterPrepare, when set, runs on Prepare's connection once the variant's
	// tables exist (e.g. `writeamp check` applies a migration to them); an
	// error drops the schema again and fails Prepare.
	AfterPrepare func(ctx context.Context, conn *sql.Conn, schema string) error
	plan         *Plan
	keep         bool      // --keep: the schemas are marked kept and never dropped
	created      bool      // this process created the current schema
	lockConn     *sql.Conn // holds the current schema's lock until Cleanup
	variant      string
	schema       string
	dialect      string
	version      int
	server       dialects.Server
}

// The orchestration finds these capabilities by type assertion; a changed
// signature must fail the build, not silently switch cleanup off.
var (
	_ workloads.Workload        = (*Workload)(nil)
	_ workloads.LeftoverCleaner = (*Workload)(nil)
	_ workloads.EffectDescriber = (*Workload)(nil)
	_ workloads.Keeper          = (*Workload)(nil)
)

func init() {
	workloads.Register(Name, func() workloads.Workload { return New(DefaultParams()) })
}

// New returns a workload with its own run id (schema names derive from it).
func New(p Params) *Workload {
	b := make([]byte, 4)
	rand.Read(b)
	return &Workload{P: p, RunID: hex.EncodeToString(b)}
}

func (w *Workload) Meta() workloads.Meta {
	return workloads.Meta{
		Name:          Name,
		Description:   "Keycloak persistent sessions: login, token refresh, logout (PR #51904)",
		Variants:      Variants,
		MainOperation: "refreshes",
		Params: map[string]any{
			"logins": w.P.Logins, "refreshes_per_login": w.P.RefreshesPerLogin,
			"refresh_period": w.P.RefreshPeriod.String(), "logout_percent": w.P.LogoutPercent,
			"max_idle": w.P.MaxIdle.String(), "coarse_granularity_seconds": Granularity(int64(w.P.MaxIdle / time.Second)),
			"buckets": w.P.Buckets, "concurrency": w.P.Concurrency, "seed": w.P.Seed,
			"users_per_second": w.P.UsersPerSecond, "clock": "simulated", "fillfactor": w.P.FillFactor,
			"first_refresh_after": w.P.FirstRefreshAfter.String(), "bucket_function": w.P.BucketFunction,
			"bucket_position": w.P.BucketPosition, "css_user_session_index": w.P.CSSUserSessionIndex,
		},
		Assumptions: w.P.Assumptions(),
	}
}

func (w *Workload) ensurePlan() *Plan {
	if w.plan == nil {
		w.plan = NewPlan(w.P.Logins, w.P.RefreshesPerLogin, w.P.RefreshPeriod.Milliseconds(),
			int64(1000/w.P.UsersPerSecond), w.P.LogoutPercent, w.P.Seed)
		w.plan.FirstMS = w.P.FirstRefreshAfter.Milliseconds()
	}
	return w.plan
}

// TotalOperations is logins + refreshes + logouts.
func (w *Workload) TotalOperations() int64 { return w.ensurePlan().Total() }

// Schema is the current variant's schema.
func (w *Workload) Schema() string { return w.schema }

// Scope is the workload's two tables in its own schema.
func (w *Workload) Scope() collectors.Scope {
	return collectors.Scope{Schemas: []string{w.schema}, Tables: Tables}
}

// SchemaPrefix marks every schema the workload creates.
const SchemaPrefix = "writeamp_rt_"

func (w *Workload) sql(name string) (string, error) {
	t, err := queries.Get(w.dialect, name, w.version)
	if err != nil {
		return "", err
	}
	return Render(t, w.schema, w.P), nil
}

// Render fills a workload block's placeholders as a run with these
// parameters does: the schema, the heap fillfactor, the seed rows' realm and
// client, and where SESSION_BUCKET goes in the 26.8 expiration indexes.
func Render(text, schema string, p Params) string {
	lead, mid := "", "session_bucket, "
	if p.BucketPosition == "leading" {
		lead, mid = "session_bucket, ", ""
	}
	return strings.NewReplacer(
		"{{schema}}", schema,
		"{{fillfactor}}", strconv.Itoa(p.FillFactor),
		// The seed rows carry the run's realm and client, so the statistics
		// describe the values the workload's statements look up.
		"{{realm_id}}", "'"+realmID+"'",
		"{{client_id}}", "'"+clientID+"'",
		"{{lead_bucket}}", lead,
		"{{mid_bucket}}", mid,
	).Replace(text)
}

func (w *Workload) mustSQL(name string) string {
	t, err := w.sql(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Statements splits a block of the workload's SQL into statements by the
// lexical rules the four dialects share (quotes, comments), as sqlparse does.
func Statements(block string) []string { return sqlparse.Statements(block) }

// Prepare creates the variant's schema, marks it as writeamp's, and creates
// the tables and indexes. A failure drops what was created.
func (w *Workload) Prepare(ctx context.Context, db *sql.DB, s dialects.Server, variant string) (err error) {
	if err := w.P.Validate(); err != nil {
		return err
	}
	ok := false
	for _, v := range Variants {
		ok = ok || v == variant
	}
	if !ok {
		return fmt.Errorf("--variants: unknown variant %q (known: %s)", variant, strings.Join(Variants, ", "))
	}
	w.variant, w.dialect, w.version, w.server = variant, s.Dialect, s.VersionNum, s
	if w.P.FillFactor != 100 && s.Dialect != "postgres" {
		return fmt.Errorf("--fillfactor is a PostgreSQL heap setting; %s has no equivalent the workload models", s)
	}
	w.schema = SchemaPrefix + w.RunID + "_" + variant
	w.ensurePlan()
	ddl, err := w.sql("rt_ddl_" + variant)
	if err != nil {
		return fmt.Errorf("refresh-token has no %s DDL for %s: %w", variant, s, err)
	}
	if variant == "coarse" && w.P.CSSUserSessionIndex == "keep" {
		ix, err := w.sql("rt_css_user_session_index")
		if err != nil {
			return err
		}
		ddl += ";\n" + ix
	}
	if err := dialects.CheckIdentifiers(s, w.mustSQL("rt_create_schema")+"\n"+ddl); err != nil {
		return fmt.Errorf("refresh-token cannot create its %s tables: %w", variant, err)
	}
	// The schema's lock is taken before the schema exists and held until
	// Cleanup: no other run can see the schema without its lock being held.
	w.created = false
	if err := w.hold(ctx, db); err != nil {
		return err
	}
	err = w.onConn(ctx, db, func(conn *sql.Conn) error {
		if err := w.create(ctx, conn, ddl); err != nil || w.AfterPrepare == nil {
			return err
		}
		if err := w.AfterPrepare(ctx, conn, w.schema); err != nil {
			if cerr := w.drop(context.WithoutCancel(ctx), conn); cerr != nil {
				err = fmt.Errorf("%w (and cleanup failed: %v)", err, cerr)
			}
			return err
		}
		return nil
	})
	if err != nil {
		if w.created {
			// The drop on Prepare's own connection failed (the session was
			// killed, say): try once more on a new one.
			cctx := context.WithoutCancel(ctx)
			if derr := w.onConn(cctx, db, func(c *sql.Conn) error { return w.drop(cctx, c) }); derr == nil {
				err = fmt.Errorf("%w (schema %s dropped on a new connection)", err, w.schema)
			} else {
				err = fmt.Errorf("%w; schema %s was left behind: the next writeamp run on this database drops it, or `writeamp clean --drop`", err, w.schema)
			}
		}
		w.release(context.WithoutCancel(ctx))
	}
	return err
}

// onConn runs DDL on one connection that publishes its statistics when done
// (PostgreSQL 15+): otherwise a pooled connection's WAL counts from this DDL
// would be published late, inside the next measured window.
func (w *Workload) onConn(ctx context.Context, db *sql.DB, f func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	ferr := f(conn)
	if d, ok := dialects.Get(w.server.Dialect); ok {
		if e, ok := d.(dialects.SessionEnder); ok {
			if err := e.EndSession(context.WithoutCancel(ctx), conn, w.server); err != nil && ferr == nil {
				ferr = fmt.Errorf("publish session statistics: %w", err)
			}
		}
	}
	return ferr
}

func (w *Workload) create(ctx context.Context, db dialects.Querier, ddl string) (err error) {
	existing, err := w.listSchemas(ctx, db)
	if err != nil {
		return fmt.Errorf("list existing writeamp schemas: %w", err)
	}
	for _, e := range existing {
		if strings.EqualFold(e, w.schema) {
			return fmt.Errorf("schema %s %w", w.schema, workloads.ErrNotOwned)
		}
	}
	if _, err := db.ExecContext(ctx, w.mustSQL("rt_create_schema")); err != nil {
		return fmt.Errorf("create schema %s: %w", w.schema, w.explainDDL(err))
	}
	w.created = true
	defer func() {
		if err != nil {
			if cerr := w.drop(context.WithoutCancel(ctx), db); cerr != nil {
				err = fmt.Errorf("%w (and cleanup failed: %v)", err, cerr)
			}
		}
	}()
	if _, err := db.ExecContext(ctx, w.mustSQL("rt_marker_create")); err != nil {
		return fmt.Errorf("create owner marker: %w", err)
	}
	if _, err := db.ExecContext(ctx, w.mustSQL("rt_marker_insert"), w.RunID, os.Getpid(), hostname(), time.Now().UTC().Format(time.RFC3339), lockSession, boolInt(w.keep)); err != nil {
		return fmt.Errorf("write owner marker: %w", err)
	}
	for _, stmt := range Statements(ddl) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create %s tables: %w", w.variant, w.explainDDL(err))
		}
	}
	// Dialects whose planner needs statistics to pick the primary key get
	// them seeded here, before the window (see rt_seed_stats).
	if seed, err := w.sql("rt_seed_stats"); err == nil {
		for _, stmt := range Statements(seed) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("seed planner statistics: %w", err)
			}
		}
	}
	return nil
}
