package workloads

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/result"
)

// CheckHooks is what `writeamp check` needs of a built-in workload to
// measure a migration on it (cockroach's workload Hooks, for one command):
// a fresh copy per measurement, the run's id for its schema names, and a
// hook on Prepare's connection, once the variant's objects exist, where check
// applies the migration. check reaches the workload through the registry
// and these methods only, so a second workload gets check without a change
// outside its package (internal/testing/workloadtest/demo proves it).
type CheckHooks interface {
	// Fresh is a new workload with the same parameters and none of this
	// one's run state.
	Fresh() Workload
	// SetRunID names the run's schemas (check's run id).
	SetRunID(id string)
	// SetAfterPrepare installs the hook; an error drops what Prepare
	// created and fails Prepare.
	SetAfterPrepare(f func(ctx context.Context, conn *sql.Conn, schema string) error)
}

// VariantEffects is implemented by workloads whose statements differ by
// variant: the effects of the statements the variant runs.
type VariantEffects interface {
	EffectsOf(variant string) map[string]Effect
}

// Claimer is implemented by workloads that test claims someone made about
// their variants (Keycloak PR #51904 for refreshtoken): Claims holds the
// claims against a comparison of runs of this workload, first against last
// column; the reports render whatever a workload gives.
type Claimer interface {
	Claims(res *result.Result, from, to *result.Run) []result.Claim
}
