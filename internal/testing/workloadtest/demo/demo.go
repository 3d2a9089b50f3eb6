package demo

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/owned"
)

// Name is the registry name.
const Name = "demo"

//go:embed demo.sql
var demoSQL string

func init() {
	workloads.Register(Name, func() workloads.Workload {
		return &Workload{Rows: 100, Updates: 1000, Owned: owned.New("writeamp_demo_")}
	})
}

// Workload is the demo's parameters and its schemas.
type Workload struct {
	Rows, Updates int
	Owned         *owned.Schemas
	update        string
	afterPrepare  func(ctx context.Context, conn *sql.Conn, schema string) error
}

// The check hooks: `writeamp check` measures a migration on the demo as it
// does on refreshtoken, through the registry.
var _ workloads.CheckHooks = (*Workload)(nil)

func (w *Workload) Fresh() workloads.Workload {
	return &Workload{Rows: w.Rows, Updates: w.Updates, Owned: owned.New(w.Owned.Prefix)}
}
func (w *Workload) SetRunID(id string) { w.Owned.RunID = id }
func (w *Workload) SetAfterPrepare(f func(ctx context.Context, conn *sql.Conn, schema string) error) {
	w.afterPrepare = f
}

func (w *Workload) Meta() workloads.Meta {
	return workloads.Meta{Name: Name, Description: "updates of one counter row at a time (a test of the workload machinery)",
		Variants: []string{"indexed", "plain"}, MainOperation: "updates",
		Params: map[string]any{"rows": w.Rows, "updates": w.Updates}}
}

func (w *Workload) Flags() *pflag.FlagSet {
	f := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	f.IntVar(&w.Rows, "rows", w.Rows, "rows in the counter table")
	f.IntVar(&w.Updates, "updates", w.Updates, "single-row updates")
	return f
}

func (w *Workload) Validate() error {
	if w.Rows < 1 || w.Updates < 0 {
		return fmt.Errorf("--rows must be at least 1 and --updates 0 or more (got %d, %d)", w.Rows, w.Updates)
	}
	return nil
}

func (w *Workload) sql(name string) (string, error) {
	bs, err := queries.Parse("postgres", "demo.sql", demoSQL)
	if err != nil {
		return "", err
	}
	for _, b := range bs {
		if b.Name == name {
			return strings.ReplaceAll(b.SQL, "{{schema}}", w.Owned.Current()), nil
		}
	}
	return "", fmt.Errorf("demo: no statement %s", name)
}

func (w *Workload) Prepare(ctx context.Context, t dialects.Target, variant string) error {
	if t.Server.Dialect != "postgres" {
		return fmt.Errorf("the demo workload has PostgreSQL statements only, not %s", t.Server)
	}
	w.Owned.Use(t, variant)
	ddl, err := w.sql("demo_ddl_" + variant)
	if err != nil {
		return err
	}
	seed, _ := w.sql("demo_seed")
	if w.update, err = w.sql("demo_update"); err != nil {
		return err
	}
	return w.Owned.Create(ctx, func(ctx context.Context, conn *sql.Conn) error {
		for _, st := range strings.Split(ddl, ";\n") {
			if _, err := conn.ExecContext(ctx, st); err != nil {
				return w.Owned.Explain(err)
			}
		}
		if _, err := conn.ExecContext(ctx, seed, w.Rows); err != nil {
			return err
		}
		if w.afterPrepare != nil {
			return w.afterPrepare(ctx, conn, w.Owned.Current())
		}
		return nil
	})
}

func (w *Workload) Scope() collectors.Scope {
	return collectors.Scope{Schemas: []string{w.Owned.Current()}, Tables: []string{"counter"}}
}

func (w *Workload) TotalOperations() int64 { return int64(w.Updates) }

// Ops: worker i of n does updates i, i+n, ...; update k touches row k mod Rows.
func (w *Workload) Ops() (workloads.Ops, error) {
	return func(worker, workers int) workloads.Next {
		k := worker
		return func() (workloads.Op, bool) {
			if k >= w.Updates {
				return workloads.Op{}, false
			}
			id := k%w.Rows + 1
			k += workers
			return workloads.Op{Name: "update", Counts: "updates", Steps: []workloads.Step{
				{Name: "demo_update", Stmt: dialects.Stmt{SQL: w.update, Args: []any{id}}, Want: 1}}}, true
		}
	}, nil
}

func (w *Workload) Effects() map[string]workloads.Effect {
	return map[string]workloads.Effect{"demo_update": {Table: "counter", Kind: "update", Columns: []string{"v"}}}
}

func (w *Workload) Cleanup(ctx context.Context, _ dialects.Target) error { return w.Owned.Drop(ctx) }
func (w *Workload) KeepObjects()                                         { w.Owned.Keep() }
func (w *Workload) SchemaPrefix() string                                 { return w.Owned.Prefix }
func (w *Workload) CleanLeftovers(ctx context.Context, t dialects.Target) ([]string, []string, error) {
	return w.Owned.CleanLeftovers(ctx, t)
}
