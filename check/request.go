package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// Request is a check as the user typed it (the command's flags and the
// command after --). Gate validates it and reads its files, so that bad
// input is refused, naming the flag, before anything connects.
type Request struct {
	Schemas, Migrations, Budgets []string
	// Command is the workload command after --; nil runs the built-in
	// refresh-token Workload on Variant with Concurrency workers.
	Command     []string
	Variant     string
	Workload    *refreshtoken.Workload
	Concurrency int
	// ScopeSchemas is --scope-schema (-- COMMAND only).
	ScopeSchemas []string
}

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
	bs, err := budget.ParseAll(r.Budgets)
	if err != nil {
		return nil, err
	}
	if err := budget.CheckMetrics(bs); err != nil {
		return nil, err
	}
	if r.Command == nil {
		if r.Workload == nil {
			return nil, fmt.Errorf("check: no built-in workload")
		}
		if err := r.Workload.Validate(); err != nil {
			return nil, err
		}
		if err := workloads.CheckConcurrency(r.Concurrency); err != nil {
			return nil, err
		}
		if !slices.Contains(refreshtoken.Variants, r.Variant) {
			return nil, fmt.Errorf("--variant: unknown variant %q (known: %s)", r.Variant, strings.Join(refreshtoken.Variants, ", "))
		}
		if len(r.ScopeSchemas) > 0 {
			return nil, fmt.Errorf("--scope-schema is for -- COMMAND; the built-in workload measures its own schema")
		}
	}
	schema, err := LoadFiles("--schema", r.Schemas)
	if err != nil {
		return nil, err
	}
	migration, err := LoadFiles("--migration", r.Migrations)
	if err != nil {
		return nil, err
	}
	g := &Gate{Schema: schema, Migration: migration, Budgets: bs, Command: r.Command,
		Scope: collectors.Scope{Schemas: r.ScopeSchemas}, Variant: r.Variant, Concurrency: r.Concurrency}
	if r.Workload != nil {
		g.Params = r.Workload.P
	}
	return g, nil
}
