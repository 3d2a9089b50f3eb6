package refreshtoken

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/owned"
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
	regularFlag = "0" // regular sessions, persisted since Keycloak 25
	offlineFlag = "1" // offline sessions (--offline-percent)
)

// Workload is one refresh-token run; Prepare/Ops/Cleanup per variant.
type Workload struct {
	P Params
	// Owned are the run's schemas, one per variant (Owned.RunID names them).
	Owned *owned.Schemas
	// AfterPrepare, when set, runs on Prepare's connection once the variant's
	// tables exist (e.g. `writeamp check` applies a migration to them); an
	// error drops the schema again and fails Prepare.
	AfterPrepare func(ctx context.Context, conn *sql.Conn, schema string) error
	plan         *Plan
	file         *FileVariant // --variant-file
	variant      string
	target       dialects.Target
	warmRounds   int // warm-up rounds run before the current variant's window
}

// The orchestration finds these capabilities by type assertion; a changed
// signature must fail the build, not silently switch cleanup off.
var (
	_ workloads.Workload        = (*Workload)(nil)
	_ workloads.Flagser         = (*Workload)(nil)
	_ workloads.Documenter      = (*Workload)(nil)
	_ workloads.LeftoverCleaner = (*Workload)(nil)
	_ workloads.EffectDescriber = (*Workload)(nil)
	_ workloads.Keeper          = (*Workload)(nil)
	_ workloads.SchemaOwner     = (*Workload)(nil)
	_ workloads.RunAmender      = (*Workload)(nil)
	_ workloads.Epiloguer       = (*Workload)(nil)
	_ workloads.WindowPlacer    = (*Workload)(nil)
)

func init() {
	workloads.Register(Name, func() workloads.Workload { return New(DefaultParams()) })
}

// New returns a workload with its own run id (schema names derive from it).
func New(p Params) *Workload {
	return &Workload{P: p, Owned: owned.New(SchemaPrefix)}
}

// variants are the built-in variants and the variant file's.
func (w *Workload) variants() []string {
	if w.file != nil {
		return append(slices.Clone(Variants), w.file.Name)
	}
	return Variants
}

func (w *Workload) Meta() workloads.Meta {
	m := workloads.Meta{
		Name:          Name,
		Description:   "Keycloak persistent sessions: login, token refresh, logout (PR #51904)",
		Variants:      w.variants(),
		MainOperation: "refreshes",
		Params: map[string]any{
			"logins": w.P.Logins, "refreshes_per_login": w.P.RefreshesPerLogin,
			"refresh_period": w.P.RefreshPeriod.String(), "logout_percent": w.P.LogoutPercent,
			"max_idle": w.P.MaxIdle.String(), "coarse_granularity_seconds": Granularity(int64(w.P.MaxIdle / time.Second)),
			"buckets": w.P.Buckets, "seed": w.P.Seed,
			"users_per_second": w.P.UsersPerSecond, "clock": "simulated", "fillfactor": w.P.FillFactor,
			"first_refresh_after": w.P.FirstRefreshAfter.String(), "bucket_function": w.P.BucketFunction,
			"bucket_position": w.P.BucketPosition, "css_user_session_index": w.P.CSSUserSessionIndex,
			"expiration_job": w.P.ExpirationJob, "expiration_interval": w.P.ExpirationInterval.String(),
			"expiration_batch": w.P.ExpirationBatch, "max_lifespan": w.P.MaxLifespan.String(),
			"coarse_expiration": w.P.CoarseExpiration, "preload": w.P.Preload,
			"warmup": w.P.Warmup, "checkpoint": w.P.Checkpoint, "warmup_until_stable": w.P.WarmupUntilStable,
		},
		Assumptions: w.P.Assumptions(),
	}
	if w.P.OfflinePercent > 0 {
		// Only then: a default run's parameters stay PR #51904's.
		m.Params["offline_percent"] = w.P.OfflinePercent
		m.Params["offline_max_idle"] = w.P.OfflineMaxIdle.String()
		m.Params["offline_coarse_granularity_seconds"] = w.P.granularity(true)
	}
	return m
}

func (w *Workload) ensurePlan() *Plan {
	if w.plan == nil {
		w.plan = NewPlan(w.P.Logins, w.P.RefreshesPerLogin, w.P.RefreshPeriod.Milliseconds(),
			int64(1000/w.P.UsersPerSecond), w.P.LogoutPercent, w.P.Seed).WithOffline(w.P.OfflinePercent)
		w.plan.FirstMS = w.P.FirstRefreshAfter.Milliseconds()
	}
	return w.plan
}

// TotalOperations is logins + refreshes + logouts.
func (w *Workload) TotalOperations() int64 { return w.ensurePlan().Total() }

// Schema is the current variant's schema.
func (w *Workload) Schema() string { return w.Owned.Current() }

// Scope is the workload's two tables in its own schema.
func (w *Workload) Scope() collectors.Scope {
	return collectors.Scope{Schemas: []string{w.Schema()}, Tables: Tables}
}

// SchemaPrefix marks every schema the workload creates.
const SchemaPrefix = "writeamp_rt_"

// SchemaPrefix is what `writeamp clean` looks for.
func (w *Workload) SchemaPrefix() string { return SchemaPrefix }

func (w *Workload) sql(name string) (string, error) {
	t, err := queries.Get(w.target.Server.Dialect, name, w.target.Server.VersionNum)
	if err != nil {
		return "", err
	}
	return Render(t, w.Schema(), w.P), nil
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

// Statements splits a block of the workload's SQL into statements by the
// lexical rules the four dialects share (quotes, comments), as sqlparse does.
func Statements(block string) []string { return sqlparse.Statements(block) }

// Prepare creates the variant's schema (owned: locked, marked, dropped on
// failure) and its tables and indexes.
func (w *Workload) Prepare(ctx context.Context, t dialects.Target, variant string) error {
	if err := w.P.Validate(); err != nil {
		return err
	}
	if err := w.loadVariantFile(); err != nil {
		return err
	}
	if !slices.Contains(w.variants(), variant) {
		return fmt.Errorf("--variants: unknown variant %q (known: %s)", variant, strings.Join(w.variants(), ", "))
	}
	s := t.Server
	w.variant, w.target = variant, t
	if w.P.FillFactor != 100 && s.Dialect != "postgres" {
		return fmt.Errorf("--fillfactor is a PostgreSQL heap setting; %s has no equivalent the workload models", s)
	}
	schema := w.Owned.Use(t, variant)
	w.ensurePlan()
	ddl, err := w.sql("rt_ddl_" + w.baseVariant())
	if err != nil {
		return fmt.Errorf("refresh-token has no %s DDL for %s: %w", variant, s, err)
	}
	if ddl, err = w.variantDDL(ddl); err != nil {
		return err
	}
	if w.baseVariant() == "coarse" && w.P.CSSUserSessionIndex == "keep" {
		ix, err := w.sql("rt_css_user_session_index")
		if err != nil {
			return err
		}
		ddl += ";\n" + ix
	}
	create, err := w.Owned.SQL("owned_create_schema")
	if err != nil {
		return fmt.Errorf("refresh-token cannot create its own schema on %s: %w", s, err)
	}
	if err := dialects.CheckIdentifiers(s, create+"\n"+ddl); err != nil {
		return fmt.Errorf("refresh-token cannot create its %s tables: %w", variant, err)
	}
	return w.Owned.Create(ctx, func(ctx context.Context, conn *sql.Conn) error {
		for _, stmt := range Statements(ddl) {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create %s tables: %w", variant, w.Owned.Explain(err))
			}
		}
		// Dialects whose planner needs statistics to pick the primary key get
		// them seeded here, before the window (see rt_seed_stats).
		if seed, err := w.sql("rt_seed_stats"); err == nil {
			for _, stmt := range Statements(seed) {
				if _, err := conn.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("seed planner statistics: %w", err)
				}
			}
		}
		if err := w.loadPreload(ctx, conn); err != nil {
			return err
		}
		if w.AfterPrepare != nil {
			return w.AfterPrepare(ctx, conn, schema)
		}
		return nil
	})
}

// Cleanup drops the current schema and gives its lock up; a kept schema
// (--keep) is only released.
func (w *Workload) Cleanup(ctx context.Context, _ dialects.Target) error { return w.Owned.Drop(ctx) }

// KeepObjects makes Prepare mark the schemas it creates as kept (--keep).
func (w *Workload) KeepObjects() { w.Owned.Keep() }

// CleanLeftovers drops the schemas earlier runs left (their lock is free).
func (w *Workload) CleanLeftovers(ctx context.Context, t dialects.Target) (dropped, kept []string, err error) {
	return w.Owned.CleanLeftovers(ctx, t)
}

// Ops are the prepared variant's sessions: worker i of n takes logins i,
// i+n, ... and issues each session's events in simulated-time order.
func (w *Workload) Ops() (workloads.Ops, error) { return w.opsFor(w.ensurePlan()) }

func (w *Workload) opsFor(plan *Plan) (workloads.Ops, error) {
	t, err := w.prepareTexts()
	if err != nil {
		return nil, err
	}
	return func(worker, workers int) workloads.Next {
		c := plan.cursor(worker, workers)
		return func() (workloads.Op, bool) {
			ev, ok := c.next()
			if !ok {
				return workloads.Op{}, false
			}
			steps, done := w.steps(t, ev)
			return workloads.Op{Name: ev.kind.String(), Counts: ev.kind.plural(), Steps: steps, Done: done}, true
		}
	}, nil
}

var _ workloads.CheckHooks = (*Workload)(nil)

// Fresh implements workloads.CheckHooks.
func (w *Workload) Fresh() workloads.Workload { return New(w.P) }

// SetRunID implements workloads.CheckHooks.
func (w *Workload) SetRunID(id string) { w.Owned.RunID = id }

// SetAfterPrepare implements workloads.CheckHooks.
func (w *Workload) SetAfterPrepare(f func(ctx context.Context, conn *sql.Conn, schema string) error) {
	w.AfterPrepare = f
}

// EffectsOf implements workloads.VariantEffects: baseline runs none of the
// _coarse statements.
func (w *Workload) EffectsOf(variant string) map[string]workloads.Effect {
	out := map[string]workloads.Effect{}
	for name, e := range w.Effects() {
		if variant == "baseline" && strings.HasSuffix(name, "_coarse") {
			continue
		}
		out[name] = e
	}
	return out
}
