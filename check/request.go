package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// Request is a check as the user typed it (the command's flags and the
// command after --). Gate validates it and reads its files, so that bad
// input is refused, naming the flag, before anything connects.
type Request struct {
	Schemas, Migrations, Budgets []string
	// Command is the workload command after --; nil runs the built-in
	// refresh-token workload with Params on Variant.
	Command []string
	Variant string
	Params  refreshtoken.Params
	// ScopeSchemas is --scope-schema (-- COMMAND only).
	ScopeSchemas []string
	// CheckParams, when set, adds the caller's limits on the built-in
	// workload's parameters (those that belong to its flags), checked
	// before Params.Validate.
	CheckParams func(refreshtoken.Params) error
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
// connection yet (DB, Server, Log and Progress are the caller's). Every
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
		if r.CheckParams != nil {
			if err := r.CheckParams(r.Params); err != nil {
				return nil, err
			}
		}
		if err := r.Params.Validate(); err != nil {
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
	return &Gate{Schema: schema, Migration: migration, Budgets: bs, Command: r.Command,
		Scope: collectors.Scope{Schemas: r.ScopeSchemas}, Params: r.Params, Variant: r.Variant}, nil
}
