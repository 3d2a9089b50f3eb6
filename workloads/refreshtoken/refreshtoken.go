// Package refreshtoken is the built-in workload that models Keycloak's
// persistent user sessions: logins insert a user and a client session, token
// refreshes update both (the expiration-index cost of PR #51904), logouts
// delete them. Variant "baseline" is Keycloak 26.7's schema, "coarse" 26.8's.
package refreshtoken

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
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

// Params are the knobs, named after keycloak-benchmark's.
type Params struct {
	Logins            int
	RefreshesPerLogin int
	RefreshPeriod     time.Duration
	LogoutPercent     float64
	MaxIdle           time.Duration
	Buckets           int
	Concurrency       int
	Seed              uint64
	UsersPerSecond    float64
	// FillFactor is the heap fillfactor of the session tables (PostgreSQL).
	// Keycloak ships 100; lower values leave room on each page for the new
	// row version, which decides whether an update can be HOT.
	FillFactor int
}

// DefaultParams reproduce PR #51904's scenario: 5 new users/s for 300 s,
// 10 refreshes 2 s apart, 10% log out. At that rate the database sees about
// 30 statements a second, one transaction at a time, so one worker is the
// faithful default: overlapping transactions hold back HOT pruning, which
// the reference run never had. More workers measure the same work under
// contention.
func DefaultParams() Params {
	return Params{Logins: 1500, RefreshesPerLogin: 10, RefreshPeriod: 2 * time.Second, LogoutPercent: 10,
		MaxIdle: 30 * time.Minute, Buckets: 64, Concurrency: 1, Seed: 1, UsersPerSecond: 5, FillFactor: 100}
}

// Validate names the flag that is wrong.
func (p Params) Validate() error {
	switch {
	case p.Logins < 1:
		return fmt.Errorf("--logins must be at least 1 (got %d)", p.Logins)
	case p.RefreshesPerLogin < 0:
		return fmt.Errorf("--refreshes-per-login must be 0 or more (got %d)", p.RefreshesPerLogin)
	case p.RefreshPeriod <= 0:
		return fmt.Errorf("--refresh-period must be positive (got %s)", p.RefreshPeriod)
	case p.LogoutPercent < 0 || p.LogoutPercent > 100:
		return fmt.Errorf("--logout-percent must be between 0 and 100 (got %g)", p.LogoutPercent)
	case p.MaxIdle < time.Second:
		return fmt.Errorf("--max-idle must be at least 1s (got %s)", p.MaxIdle)
	case p.Buckets < 1 || p.Buckets > 32767:
		return fmt.Errorf("--buckets must be between 1 and 32767 (SESSION_BUCKET is a SMALLINT; got %d)", p.Buckets)
	case p.Concurrency < 1 || p.Concurrency > 1024:
		return fmt.Errorf("--concurrency must be between 1 and 1024 (got %d)", p.Concurrency)
	case p.FillFactor < 10 || p.FillFactor > 100:
		return fmt.Errorf("--fillfactor must be between 10 and 100 (got %d)", p.FillFactor)
	case p.UsersPerSecond <= 0:
		return fmt.Errorf("--users-per-second must be positive (got %g)", p.UsersPerSecond)
	}
	return nil
}

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
		},
	}
}

func (w *Workload) ensurePlan() *Plan {
	if w.plan == nil {
		w.plan = NewPlan(w.P.Logins, w.P.RefreshesPerLogin, w.P.RefreshPeriod.Milliseconds(),
			int64(1000/w.P.UsersPerSecond), w.P.LogoutPercent, w.P.Seed)
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
	return strings.NewReplacer(
		"{{schema}}", w.schema,
		"{{fillfactor}}", strconv.Itoa(w.P.FillFactor),
		// The seed rows carry the run's realm and client, so the statistics
		// describe the values the workload's statements look up.
		"{{realm_id}}", "'"+realmID+"'",
		"{{client_id}}", "'"+clientID+"'",
	).Replace(t), nil
}

func (w *Workload) mustSQL(name string) string {
	t, err := w.sql(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Statements splits a DDL block on ";" at line ends, as the workload runs it.
func Statements(block string) []string {
	var out []string
	for _, s := range strings.Split(block, ";\n") {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

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

// Run drives the plan with Concurrency workers, each on its own connection
// with its own share of the sessions in simulated-time order.
func (w *Workload) Run(ctx context.Context, db *sql.DB, s dialects.Server, p workloads.Progress) (workloads.Stats, error) {
	if p == nil {
		p = workloads.NoProgress{}
	}
	plan := w.ensurePlan()
	n := w.P.Concurrency
	var ender dialects.SessionEnder
	var pipe dialects.Pipeliner
	if d, ok := dialects.Get(s.Dialect); ok {
		ender, _ = d.(dialects.SessionEnder)
		if !w.NoPipeline {
			pipe, _ = d.(dialects.Pipeliner)
		}
	}
	stmts, err := w.prepareTexts()
	if err != nil {
		return workloads.Stats{}, err
	}
	results := make([]*workerStats, n)
	errs := make([]error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = w.worker(ctx, db, s, ender, pipe, stmts, plan.cursor(i, n), p)
		}(i)
	}
	wg.Wait()
	var runErr error
	failed := 0
	for _, e := range errs {
		if e != nil {
			if runErr == nil {
				runErr = e
			}
			failed++
		}
	}
	if failed > 1 {
		runErr = fmt.Errorf("%w (and %d more workers failed)", runErr, failed-1)
	}
	st := workloads.Stats{Operations: map[string]int64{}, Errors: map[string]int64{}, Latency: map[string]*workloads.Histogram{}, Statements: map[string]int64{}, Elapsed: time.Since(start)}
	for _, r := range results {
		if r != nil {
			r.mergeInto(&st)
		}
	}
	return st, runErr
}

// Effects says what each DML statement writes (statement names as counted in
// Stats.Statements).
func (w *Workload) Effects() map[string]workloads.Effect {
	return map[string]workloads.Effect{
		"rt_insert_user_session":        {Table: "offline_user_session", Kind: "insert"},
		"rt_insert_client_session":      {Table: "offline_client_session", Kind: "insert"},
		"rt_update_user_session":        {Table: "offline_user_session", Kind: "update", Columns: []string{"last_session_refresh", "version"}},
		"rt_update_user_session_coarse": {Table: "offline_user_session", Kind: "update", Columns: []string{"last_session_refresh", "last_session_refresh_coarse", "version"}},
		"rt_update_client_session":      {Table: "offline_client_session", Kind: "update", Columns: []string{"timestamp", "version"}},
		"rt_delete_client_sessions":     {Table: "offline_client_session", Kind: "delete"},
		"rt_delete_user_session":        {Table: "offline_user_session", Kind: "delete"},
	}
}

type texts map[string]string

func (w *Workload) prepareTexts() (texts, error) {
	t := texts{}
	for _, n := range []string{"rt_select_user_session", "rt_insert_user_session_" + w.variant, "rt_select_client_session",
		"rt_insert_client_session", "rt_select_client_sessions", "rt_update_user_session", "rt_update_user_session_coarse",
		"rt_update_client_session", "rt_delete_client_sessions", "rt_lock_user_session", "rt_delete_user_session"} {
		s, err := w.sql(n)
		if err != nil {
			return nil, err
		}
		// The insert differs per variant; the rest are shared by name.
		t[n] = s
		if n == "rt_insert_user_session_"+w.variant {
			t["rt_insert_user_session"] = s
		}
	}
	return t, nil
}

type workerStats struct {
	ops, errs, stmts map[string]int64
	retries          int64
	lat              map[string]*workloads.Histogram
}

func (r *workerStats) mergeInto(st *workloads.Stats) {
	for k, v := range r.ops {
		st.Operations[k] += v
	}
	for k, v := range r.errs {
		st.Errors[k] += v
	}
	for k, v := range r.stmts {
		st.Statements[k] += v
	}
	st.Retries += r.retries
	for k, h := range r.lat {
		if st.Latency[k] == nil {
			st.Latency[k] = workloads.NewHistogram()
		}
		st.Latency[k].Merge(h)
	}
}

// maxErrors stops a run that fails persistently instead of reporting noise.
const maxErrors = 100

func (w *Workload) worker(ctx context.Context, db *sql.DB, s dialects.Server, ender dialects.SessionEnder, pipe dialects.Pipeliner, t texts, c *cursor, p workloads.Progress) (*workerStats, error) {
	r := &workerStats{ops: map[string]int64{}, errs: map[string]int64{}, stmts: map[string]int64{}, lat: map[string]*workloads.Histogram{}}
	for _, k := range []string{"login", "refresh", "logout"} {
		r.lat[k] = workloads.NewHistogram()
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	gran := Granularity(int64(w.P.MaxIdle / time.Second))
	total := 0
	for {
		ev, ok := c.next()
		if !ok {
			break
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		op := ev.kind.String()
		t0 := time.Now()
		var err error
		for attempt := 0; ; attempt++ {
			err = w.do(ctx, conn, pipe, t, ev, gran, r.stmts)
			if err == nil || attempt == 3 || !workloads.Retryable(err) {
				break
			}
			r.retries++
		}
		r.lat[op].Record(time.Since(t0))
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err() // cancellation at shutdown is not an error of the workload
			}
			r.errs[op]++
			total++
			if total >= maxErrors || workloads.ConnectionLost(err) {
				return r, fmt.Errorf("%s failed (%d errors so far): %w", op, total, err)
			}
			continue
		}
		r.ops[ev.kind.plural()]++
		p.Add(1)
	}
	if ender != nil {
		if err := ender.EndSession(ctx, conn, s); err != nil {
			return r, fmt.Errorf("publish session statistics: %w", err)
		}
	}
	return r, nil
}

// step is one statement of an operation and what it must do.
type step struct {
	name string
	stmt dialects.Stmt
	want int64 // rows affected (DML) or returned (query); -1 = any
}

// steps are the statements of one operation as Keycloak's JPA layer issues
// them, one transaction each (keycloak-sessions.md). VERSION is the
// optimistic lock: the driver tracks it per session, and the SELECT that
// Keycloak reads it with must find the row, the UPDATE must match it.
func (w *Workload) steps(t texts, ev event, gran int64) []step {
	s := ev.s
	now := Epoch + ev.at/1000
	st := func(name string, query bool, want int64, args ...any) step {
		return step{name: name, stmt: dialects.Stmt{SQL: t[name], Args: args, Query: query}, want: want}
	}
	switch ev.kind {
	case opLogin:
		args := []any{s.id, s.userID, realmID, s.createdOn, offlineFlag, userSessionData(s.id, s.userID, s.createdOn), s.createdOn, false}
		if w.variant == "coarse" {
			args = append(args, Bucket(s.id, w.P.Buckets), Coarse(s.createdOn, s.createdOn, gran))
		}
		return []step{
			st("rt_select_user_session", true, 0, s.id, offlineFlag, realmID),
			st("rt_insert_user_session", false, 1, args...),
			st("rt_select_client_session", true, 0, s.id, clientID, offlineFlag),
			st("rt_insert_client_session", false, 1, s.id, clientID, offlineFlag, s.createdOn, clientSessionData(clientID, s.createdOn), realmID),
		}
	case opRefresh:
		prev := Epoch + (ev.at-w.P.RefreshPeriod.Milliseconds())/1000 // the previous LAST_SESSION_REFRESH
		upd := st("rt_update_user_session", false, 1, now, s.id, offlineFlag, s.version)
		// @DynamicUpdate: the coarse column is written only when it changes.
		if w.variant == "coarse" && Coarse(now, s.createdOn, gran) != Coarse(prev, s.createdOn, gran) {
			upd = st("rt_update_user_session_coarse", false, 1, now, Coarse(now, s.createdOn, gran), s.id, offlineFlag, s.version)
		}
		return []step{
			st("rt_select_user_session", true, 1, s.id, offlineFlag, realmID),
			st("rt_select_client_sessions", true, 1, s.id, offlineFlag),
			upd,
			st("rt_update_client_session", false, 1, now, s.id, clientID, offlineFlag, s.version),
		}
	default:
		return []step{
			st("rt_delete_client_sessions", false, -1, s.id, offlineFlag),
			st("rt_lock_user_session", true, 1, s.id, offlineFlag),
			st("rt_delete_user_session", false, 1, s.id, offlineFlag),
		}
	}
}

// do runs one operation in one transaction, pipelined where the dialect can.
func (w *Workload) do(ctx context.Context, conn *sql.Conn, pipe dialects.Pipeliner, t texts, ev event, gran int64, stmts map[string]int64) error {
	steps := w.steps(t, ev, gran)
	list := make([]dialects.Stmt, len(steps))
	for i, st := range steps {
		list[i] = st.stmt
	}
	var res []dialects.StmtResult
	var err error
	if pipe != nil {
		res, err = pipe.Pipeline(ctx, conn, list)
	} else {
		res, err = dialects.ExecTx(ctx, conn, list)
	}
	if err != nil {
		return err
	}
	for i, st := range steps {
		got := res[i].RowsAffected
		if st.stmt.Query {
			got = res[i].RowsReturned
		} else {
			stmts[st.name] += got
		}
		if st.want >= 0 && got != st.want {
			return fmt.Errorf("%s: %d rows, expected %d (was the session changed by someone else?)", st.name, got, st.want)
		}
	}
	if ev.kind == opRefresh {
		ev.s.version++
	}
	return nil
}
