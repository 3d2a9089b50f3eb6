package workloads

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Meta describes a workload.
type Meta struct {
	Name        string
	Description string
	Variants    []string // in the order a default run measures them
	// MainOperation is what results are normalized by (e.g. "refreshes").
	MainOperation string
	Params        map[string]any
	// Assumptions are the modelling choices the workload's sources leave
	// open, each naming the flag that changes it.
	Assumptions []string
}

// Progress is told of completed operations.
type Progress interface{ Add(n int) }

// NoProgress discards progress.
type NoProgress struct{}

func (NoProgress) Add(int) {}

// Stats is what a run did, as the driver counted it.
type Stats struct {
	Operations map[string]int64
	Errors     map[string]int64
	Retries    int64
	Latency    map[string]*Histogram
	Elapsed    time.Duration
	// Statements counts the rows each DML statement name changed; dialects
	// without per-index counters derive index writes from it (InnoDB rules).
	Statements map[string]int64
	// Xacts maps the id of each committed operation's transaction, as the
	// log's records carry it, to the operation (Op.Name); nil unless the
	// runner was asked (Runner.Xacts) and the dialect can say.
	Xacts *collectors.Xacts
}

// Workload is a built-in write workload with variants. The runner
// (Runner.Run) drives the operations of the prepared variant.
type Workload interface {
	Meta() Meta
	// Prepare creates the variant's objects in a schema the workload owns.
	Prepare(ctx context.Context, t dialects.Target, variant string) error
	// Scope is what the collectors should read: the workload's own objects.
	Scope() collectors.Scope
	// TotalOperations is the number of operations Ops yields (for progress).
	TotalOperations() int64
	// Ops are the prepared variant's operations, split among workers.
	Ops() (Ops, error)
	// Cleanup drops what Prepare created; it never touches anything else.
	Cleanup(ctx context.Context, t dialects.Target) error
}

// Flagser is implemented by workloads with knobs of their own: Flags binds
// them to the workload (the CLI adds them to `run` and discovers them here,
// so a new workload's flags need no change outside its package), and
// Validate, called before anything connects, names the flag that is wrong.
type Flagser interface {
	Flags() *pflag.FlagSet
	Validate() error
}

// Documenter is implemented by workloads that explain themselves at more
// length than Meta.Description: `run --help` shows Long and Example.
type Documenter interface {
	Doc() (long, example string)
}

// Effect describes what a DML statement of a workload writes, for dialects
// that derive per-index writes from the statements (InnoDB).
type Effect struct {
	Table   string
	Kind    string   // "insert", "update", "delete"
	Columns []string // for updates: the columns set (lower case)
}

// EffectDescriber is implemented by workloads that can say what each of
// their statements writes; Stats.Statements counts rows per statement name.
type EffectDescriber interface {
	Effects() map[string]Effect
}

// LeftoverCleaner is implemented by workloads that can find what an earlier
// run of theirs left behind (a crash, a kill -9) and drop it: dropped lists
// what went, kept what was found but is not provably theirs to drop.
type LeftoverCleaner interface {
	CleanLeftovers(ctx context.Context, t dialects.Target) (dropped, kept []string, err error)
}

// Keeper is implemented by workloads that can keep their objects for
// inspection (--keep): KeepObjects, called before the first Prepare, makes
// them marked as kept, never dropped automatically by a later run, and
// Cleanup then releases them without dropping them.
type Keeper interface {
	KeepObjects()
}

// SchemaOwner is implemented by workloads that create their own schemas
// (workloads/owned): every one's name starts with SchemaPrefix, which is what
// `writeamp clean` lists and drops.
type SchemaOwner interface {
	SchemaPrefix() string
}

var (
	mu       sync.RWMutex
	registry = map[string]func() Workload{}
)

// Register adds a workload constructor; a workload package calls it from
// init, and the one line that imports the package is its registration.
func Register(name string, f func() Workload) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("workloads: " + name + " registered twice")
	}
	registry[name] = f
}

// Names lists the registered workloads in order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a fresh workload by name, with its default parameters.
func New(name string) (Workload, error) {
	mu.RLock()
	f, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// RunAmender is implemented by workloads that know figures of their own run
// the server cannot give (what their schedule did, e.g. how many refreshes
// crossed a coarse boundary): AmendRun adds them once the variant's run is
// built from its window.
type RunAmender interface {
	AmendRun(run *result.Run, st Stats)
}

// Epilogue is work that follows a variant's window and is measured in a
// window of its own (the refresh-token workload's expiration job): the
// variant's figures stay those of the workload alone, and the epilogue's
// join the run under Prefix.
type Epilogue struct {
	Prefix string // metric name prefix, e.g. "expiration_job_"
	Ops    Ops    // run by one worker, in order
	// Metrics are the window's figures the run gets, by the name they get:
	// only these, so the variant's figures are not confused with the
	// epilogue's.
	Metrics map[string]string
	// Finish adds what the workload counted itself (runs, rows examined)
	// and the per-run and per-row figures, from the epilogue's stats.
	Finish func(run *result.Run, st Stats)
}

// Epiloguer is implemented by workloads with an Epilogue; nil means none for
// this variant.
type Epiloguer interface {
	Epilogue() (*Epilogue, error)
}

// WindowPlacer is implemented by workloads that choose where their window
// opens relative to a checkpoint (PostgreSQL writes a full-page image at the
// first change of each page after one): Checkpoint "before" is a CHECKPOINT
// right before the window (the worst case), "none" none, "steady" a
// CHECKPOINT, then the warm-up, then the window without one. Warmup, when
// not nil, runs before the window opens, outside it.
type WindowPlacer interface {
	Placement() (checkpoint string, warmup Ops, err error)
}

// RoundWarmer is implemented by WindowPlacers whose warm-up can repeat in
// rounds until the log rate settles: a window measured before the rate is
// flat still holds the decline of the full-page images that follow a
// checkpoint, so its log is neither the worst case nor the steady state.
type RoundWarmer interface {
	// WarmupRounds is the most rounds to run and the relative difference
	// of log bytes per operation between two rounds in a row that counts as
	// settled; 0 rounds: the warm-up runs once, as Placement returned it.
	WarmupRounds() (max int, tolerance float64)
	// WarmupRound is round r's operations (round 0 is Placement's warm-up).
	WarmupRound(r int) (Ops, error)
	// WarmedUp says how many rounds ran, so the workload's model of what
	// the tables hold when the window opens counts each of them.
	WarmedUp(rounds int)
}
