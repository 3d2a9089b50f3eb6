package check

import (
	"context"
	"io"
	"strings"

	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Mode is how a check runs its workload on each side: the built-in
// workload in schemas of its own (*Builtin), a wrapped command on the
// database itself (*Command, --in-place), or on copies of it (*Copy, the
// default; *Clone, --clone: TEMPLATE copies only). Each holds only
// what it uses, so a Gate cannot be half one mode and half another, and a
// new mode is a new type, not one more nil field that every path tests.
type Mode interface {
	// measure runs both sides, Gate.Repeat times each, and records in
	// out.Restore how the database was put back.
	measure(ctx context.Context, g *Gate, out *Outcome) (*sides, error)
	// updates are the UPDATEs the workload runs, for the static warning.
	updates(g *Gate) []Update
}

// sides are what a mode measured: the result the runs go into and each
// side's repetitions, in order.
type sides struct {
	res           *result.Result
	before, after []*result.Run
}

// Builtin runs a registered workload's Variant (a fresh copy per
// measurement, through workloads.CheckHooks) in its own schema; the
// migration is applied to that schema before the "after" measurement.
type Builtin struct {
	Workload workloads.CheckHooks
	Variant  string
	// Concurrency is the number of workers (1 when 0).
	Concurrency int
}

// Command (--in-place) runs Argv once before and once after the migration,
// on the database itself; the migration is undone afterwards by Down (--down)
// or, without it, each file's own undo (goose Down section, NAME.down.sql)
// or the inverse of its statements (see restore.PlanUndo).
type Command struct {
	Argv []string
	Down []sqlfile.File
	// Output receives the command's stdout and stderr (nil: discarded).
	Output io.Writer
}

// Clone runs Argv on copies of the database (PostgreSQL --clone), one per
// side and repetition, so nothing is applied to the database itself.
type Clone struct {
	Argv   []string
	Output io.Writer
	// Cloner makes and drops the copies; the command line sets it once it
	// has an administrative connection.
	Cloner *Cloner
}

func (b *Builtin) updates(g *Gate) []Update {
	var effects map[string]workloads.Effect
	switch w := b.Workload.Fresh().(type) {
	case workloads.VariantEffects:
		effects = w.EffectsOf(b.Variant)
	case workloads.EffectDescriber:
		effects = w.Effects()
	}
	var out []Update
	for name, e := range effects {
		if e.Kind != "update" {
			continue
		}
		out = append(out, Update{Table: e.Table, Columns: e.Columns, Example: "UPDATE " + e.Table + " SET " + strings.Join(e.Columns, ", "), Source: b.Workload.Fresh().Meta().Name + " statement " + name})
	}
	return out
}

func (c *Command) updates(g *Gate) []Update { return g.commandUpdates(c.Argv) }
func (c *Clone) updates(g *Gate) []Update   { return g.commandUpdates(c.Argv) }

func (g *Gate) commandUpdates(argv []string) []Update {
	ups, notes := UpdatesOfCommand(g.server().Dialect, argv)
	for _, n := range notes {
		g.logf("%s", n)
	}
	return ups
}

// ShowOutput sends the wrapped command's output to w (no-op for the
// built-in workload).
func ShowOutput(m Mode, w io.Writer) {
	switch m := m.(type) {
	case *Command:
		m.Output = w
	case *Clone:
		m.Output = w
	case *Copy:
		m.Output = w
	}
}

// downs are the --down files of a mode that has them.
func downs(m Mode) []sqlfile.File {
	if c, ok := m.(*Command); ok {
		return c.Down
	}
	return nil
}
