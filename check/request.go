package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/workloads"
)

// Request is a check as the user typed it (the command's flags and the
// command after --). Gate validates it and reads its files, so that bad
// input is refused, naming the flag, before anything connects.
type Request struct {
	Schemas, Migrations, Budgets []string
	// Command is the workload command after --; nil runs the built-in
	// Workload (from the registry; it implements workloads.CheckHooks) on
	// Variant with Concurrency workers.
	Command     []string
	Variant     string
	Workload    workloads.Workload
	Concurrency int
	// ScopeSchemas is --scope-schema (-- COMMAND only).
	ScopeSchemas []string
	// Downs (--down), KeepMigration (--keep-migration) and Clone (--clone)
	// say how a wrapped command's check leaves the database (-- COMMAND
	// only); Repeat (--repeat) how many times each side is measured.
	Downs         []string
	KeepMigration bool
	Clone         bool
	// InPlace (--in-place) applies, measures and undoes the migration on
	// the database itself; without it (and without --clone) a wrapped
	// command is measured on copies (Copy) of at most CopyMaxSize bytes
	// (--copy-max-size; 0: DefaultCopyMaxSize).
	InPlace     bool
	CopyMaxSize int64
	Repeat      int
	// LockTimeout is --lock-timeout (nil: DefaultLockTimeout).
	LockTimeout *time.Duration
	// Allow are the config file's suppressions (the inline ones are read
	// from the migration).
	Allow []Suppression
	// Advisory are budgets (among Budgets) that report without failing.
	Advisory []string
	// ReportOnly (--report-only) measures and reports without a verdict:
	// no budget is needed, and every budget given is advisory. Without it
	// a check with no budget is refused: it could only ever pass.
	ReportOnly bool
}

// MaxRepeat bounds --repeat: each repetition is two full measurements.
const MaxRepeat = 20

// CommandAfterDash returns the workload command given after --, or nil
// when there is none; dash is the number of arguments before -- (cobra's
// ArgsLenAtDash: -1 without --).
func CommandAfterDash(args []string, dash int) ([]string, error) {
	if dash < 0 {
		if len(args) > 0 {
			return nil, fmt.Errorf("unexpected arguments %s: put the workload command after --", strings.Join(args, " "))
		}
		return nil, nil
	}
	if dash > 0 {
		return nil, fmt.Errorf("unexpected arguments before --: %s (the workload command goes after --)", strings.Join(args[:dash], " "))
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("nothing after --: give the workload command, e.g. -- psql \"$DSN\" -f work.sql")
	}
	return args, nil
}

// Gate checks the request and returns the gate it describes, without a
// connection yet (Window, Log and Progress are the caller's). Every
// error is bad input.
func (r Request) Gate() (*Gate, error) {
	if len(r.Migrations) == 0 {
		return nil, fmt.Errorf("--migration is required: the SQL file(s) or directory to check")
	}
	if r.LockTimeout != nil && *r.LockTimeout < 0 {
		return nil, fmt.Errorf("--lock-timeout %v: give 0 (wait as long as the server lets a lock wait) or a duration such as 10s", *r.LockTimeout)
	}
	bs, err := budget.ParseAll(r.Budgets)
	if err != nil {
		return nil, err
	}
	if err := budget.CheckMetrics(bs); err != nil {
		return nil, err
	}
	if r.ReportOnly {
		r.Advisory = append(r.Advisory, r.Budgets...)
	}
	if r.Command == nil {
		if r.Workload == nil {
			return nil, fmt.Errorf("check: no built-in workload")
		}
		if f, ok := r.Workload.(workloads.Flagser); ok {
			if err := f.Validate(); err != nil {
				return nil, err
			}
		}
		if _, ok := r.Workload.(workloads.CheckHooks); !ok {
			return nil, fmt.Errorf("check: the %s workload cannot be checked (it has no check hooks)", r.Workload.Meta().Name)
		}
		if err := workloads.CheckConcurrency(r.Concurrency); err != nil {
			return nil, err
		}
		if vs := r.Workload.Meta().Variants; !slices.Contains(vs, r.Variant) {
			return nil, fmt.Errorf("--variant: unknown variant %q (known: %s)", r.Variant, strings.Join(vs, ", "))
		}
		if len(r.ScopeSchemas) > 0 {
			return nil, fmt.Errorf("--scope-schema is for -- COMMAND; the built-in workload measures its own schema")
		}
		for flag, set := range map[string]bool{"--down": len(r.Downs) > 0, "--keep-migration": r.KeepMigration, "--clone": r.Clone, "--in-place": r.InPlace} {
			if set {
				return nil, fmt.Errorf("%s is for -- COMMAND: the built-in workload applies the migration inside schemas of its own and drops them, so the database is left as it was without it", flag)
			}
		}
	}
	switch {
	case r.Repeat < 1 || r.Repeat > MaxRepeat:
		return nil, fmt.Errorf("--repeat %d: measure each side 1 to %d times", r.Repeat, MaxRepeat)
	case len(r.Downs) > 0 && r.KeepMigration:
		return nil, fmt.Errorf("--down undoes the migration and --keep-migration keeps it: give one of them")
	case r.Clone && r.InPlace:
		return nil, fmt.Errorf("--clone measures on copies and --in-place on the database itself: give one of them")
	case r.Clone && (len(r.Downs) > 0 || r.KeepMigration):
		return nil, fmt.Errorf("--clone measures on copies and leaves the database untouched: --down and --keep-migration have nothing to do with it")
	case r.Command != nil && !r.InPlace && !r.Clone && len(r.Downs) > 0:
		return nil, fmt.Errorf("--down undoes the migration on the database itself, but -- COMMAND is measured on copies of it unless --in-place is given (nothing to undo): add --in-place to apply, measure and undo it on the database, or drop --down")
	case r.Command != nil && !r.InPlace && !r.Clone && r.KeepMigration:
		return nil, fmt.Errorf("--keep-migration leaves the migration applied to the database itself, but -- COMMAND is measured on copies of it unless --in-place is given: add --in-place")
	case r.CopyMaxSize < 0:
		return nil, fmt.Errorf("--copy-max-size %d: give a size such as 2GiB", r.CopyMaxSize)
	case r.KeepMigration && r.Repeat > 1 && !r.Clone:
		return nil, fmt.Errorf("--repeat measures each side on a fresh state, which needs the migration undone between repetitions: drop --keep-migration, or use --clone")
	}
	schema, err := sqlfile.Load("--schema", r.Schemas)
	if err != nil {
		return nil, err
	}
	migration, err := sqlfile.Load("--migration", r.Migrations)
	if err != nil {
		return nil, err
	}
	downFiles, err := sqlfile.LoadDown("--down", r.Downs)
	if err != nil {
		return nil, err
	}
	advisory, err := advisorySet(r.Advisory)
	if err != nil {
		return nil, err
	}
	sups, err := InlineSuppressions(migration)
	if err != nil {
		return nil, err
	}
	if r.Command == nil {
		if err := r.checkBuiltinObjects(bs, schema, migration); err != nil {
			return nil, err
		}
	}
	// Last: an error naming a flag that is wrong is worth more than this one.
	if len(bs) == 0 && !r.ReportOnly {
		return nil, fmt.Errorf("no --budget given (nor budgets in the config file): a check without one could only pass; give at least one, e.g. --budget '%s' --budget '%s', or --report-only to measure and report without a verdict", budget.Examples[0], budget.Examples[1])
	}
	g := &Gate{Suppressions: append(sups, r.Allow...), Advisory: advisory, Schema: schema, Migration: migration, Budgets: bs, LockTimeout: r.LockTimeout,
		Scope: collectors.Scope{Schemas: r.ScopeSchemas}, KeepMigration: r.KeepMigration, Repeat: r.Repeat}
	switch {
	case r.Command == nil:
		g.Mode = &Builtin{Workload: r.Workload.(workloads.CheckHooks), Variant: r.Variant, Concurrency: r.Concurrency}
	case r.Clone:
		g.Mode = &Clone{Argv: r.Command}
	case r.InPlace:
		g.Mode = &Command{Argv: r.Command, Down: downFiles}
	default:
		max := r.CopyMaxSize
		if max == 0 {
			max = DefaultCopyMaxSize
		}
		g.Mode = &Copy{Argv: r.Command, MaxSize: max}
	}
	return g, nil
}
