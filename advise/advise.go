package advise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/result"
)

// Advisor runs an advice.
type Advisor struct {
	// Base is the check every measurement is: its workload (Command, or
	// the built-in Workload and Variant), Repeat and CopyMaxSize; advise
	// sets Migrations and ReportOnly.
	Base check.Request
	// Measure connects, wires the gate (copies, scratch server) and runs
	// it: one `writeamp check --report-only` of req.
	Measure func(ctx context.Context, req check.Request) (*check.Outcome, error)
	// Original reads idx_scan and constraint backing on the user's
	// database, read only (nil: not read, as for the built-in workload).
	Original func(ctx context.Context) (map[string]Original, error)
	// Updates are the UPDATEs of a wrapped command that check's static
	// reading found (the built-in workload's come from its run).
	Updates       []Update
	OtherVariants []string
	MaxCandidates int
	// Budget stops measuring candidates once spent (0: no limit).
	Budget time.Duration
	Log    io.Writer
}

// Metric is one measured figure, before and after the change.
type Metric struct {
	Before    *float64         `json:"before"`
	After     *float64         `json:"after"`
	Exactness result.Exactness `json:"exactness"`
	Source    string           `json:"source"`
	Unit      string           `json:"unit,omitempty"`
}

// Migration is a candidate's up and down SQL.
type Migration struct {
	Up   string `json:"up"`
	Down string `json:"down"`
}

// Recommendation is a measured candidate.
type Recommendation struct {
	Rank   int    `json:"rank,omitempty"`
	Object string `json:"object"`
	Table  string `json:"table"`
	Kind   Kind   `json:"kind"`
	Change string `json:"change"`
	// Summary is the finding in one sentence.
	Summary   string            `json:"summary"`
	Why       []string          `json:"why"`
	Migration Migration         `json:"migration"`
	Measured  map[string]Metric `json:"measured,omitempty"`
	// Saving is the share of log bytes per operation the change saved
	// (negative: it cost more).
	Saving *float64 `json:"log_bytes_saving,omitempty"`
	// BeyondNoise says the saving is larger than the diagnose window's
	// own before/after difference with no change at all.
	BeyondNoise bool     `json:"beyond_noise"`
	Risks       []string `json:"risks"`
	Notes       []string `json:"notes,omitempty"`
	Files       []string `json:"files,omitempty"`
	// Error is why the candidate could not be applied or measured.
	Error string `json:"error,omitempty"`
	// Seconds is what measuring it took.
	Seconds float64 `json:"seconds"`
}

// Report is an advice: advise's own JSON document.
type Report struct {
	Tool      string `json:"tool"`
	Server    string `json:"server"`
	Workload  string `json:"workload"`
	PerOp     string `json:"per_operation"`
	Diagnosis struct {
		Tables  []TableProfile `json:"tables"`
		Indexes []IndexProfile `json:"indexes"`
		// Noise is the relative difference of log bytes per operation
		// between the two sides of the diagnose check (no change applied).
		Noise   *float64 `json:"log_bytes_noise,omitempty"`
		Seconds float64  `json:"seconds"`
	} `json:"diagnosis"`
	Recommendations []Recommendation `json:"recommendations"`
	// Skipped are candidates that failed to apply or were not measured.
	Skipped []Recommendation `json:"skipped,omitempty"`
	Notes   []string         `json:"notes,omitempty"`
}

// TableProfile is a table's write profile in the diagnose window.
type TableProfile struct {
	Table          string   `json:"table"`
	RowsUpdated    float64  `json:"rows_updated"`
	HotRatio       *float64 `json:"hot_ratio"`
	NewpageUpdates float64  `json:"newpage_updates"`
	LogBytesPerOp  float64  `json:"log_bytes_per_op"`
	PagesTouched   float64  `json:"pages_touched"`
}

// IndexProfile is an index's in the diagnose window, and why it gets entries.
type IndexProfile struct {
	Index string `json:"index"`
	Table string `json:"table"`
	// EntriesPerOp and Scans are null where the server does not count
	// them per index (InnoDB without performance_schema or userstat).
	EntriesPerOp  *float64 `json:"entries_per_op"`
	Scans         *float64 `json:"scans"`
	OriginalScans *int64   `json:"original_scans,omitempty"`
	Constraint    string   `json:"constraint,omitempty"`
	Unique        bool     `json:"unique,omitempty"`
	Why           []string `json:"why,omitempty"`
}

// noop is the diagnose check's migration: it changes nothing, so the
// check's two sides are the workload twice and their difference the noise.
const noop = "-- writeamp advise: the diagnose window (no change)\nSELECT 1;\n"

// Run diagnoses, proposes and measures; dir holds the migration files.
func (a *Advisor) Run(ctx context.Context, dir string) (*Report, error) {
	rep := &Report{Tool: "writeamp advise"}
	start := time.Now()
	a.logf("advise: diagnosing the workload (one check with no change: its two sides are the window and the noise)")
	diag, err := a.measure(ctx, dir, "00_diagnose", noop)
	if err != nil {
		return nil, fmt.Errorf("the diagnose window: %w", err)
	}
	rep.Diagnosis.Seconds = time.Since(start).Seconds()
	res := diag.Result
	before, again := &res.Runs[0], &res.Runs[1]
	rep.Server = res.Server.Name
	rep.Workload = res.Workload.Name
	if v := res.Workload.Params["variant"]; v != nil {
		rep.Workload += fmt.Sprintf(" (%v)", v)
	}
	rep.PerOp = diag.PerOp
	if b, ok := perOp(before, logBytes(before)); ok {
		if c, ok := perOp(again, logBytes(again)); ok && b > 0 {
			n := math.Abs(c-b) / b
			rep.Diagnosis.Noise = &n
		}
	}
	var orig map[string]Original
	builtin := a.Base.Command == nil
	if a.Original != nil && !builtin {
		if orig, err = a.Original(ctx); err != nil {
			rep.Notes = append(rep.Notes, "idx_scan and constraints of the database itself not read: "+err.Error())
			orig = nil
		}
	}
	d := Diagnosis{Dialect: diag.Dialect, Builtin: builtin, Run: before, Indexes: IndexesOf(before, orig), Updates: a.Updates, OtherVariants: a.OtherVariants,
		VersionNum: majorOf(res.Server.Version) * 10000}
	if builtin {
		d.Updates = nil
		for _, w := range before.Writes {
			if w.Kind == "update" {
				d.Updates = append(d.Updates, Update{Table: w.Table, Columns: w.Columns, Source: "statement " + w.Statement})
			}
		}
	}
	profile(rep, d)
	cands, err := Propose(d, a.MaxCandidates)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		rep.Notes = append(rep.Notes, noCandidate(d))
	}
	for i, c := range cands {
		r := Recommendation{Object: c.Object, Table: c.Table, Kind: c.Kind, Change: c.Change, Why: c.Why, Migration: Migration{Up: c.Up, Down: c.Down}, Notes: c.Notes}
		if a.Budget > 0 && time.Since(start) > a.Budget {
			r.Error = fmt.Sprintf("not measured: the time budget (%s) was spent", a.Budget)
			rep.Skipped = append(rep.Skipped, r)
			continue
		}
		a.logf("advise: candidate %d/%d: %s (%s)", i+1, len(cands), c.Change, c.Kind)
		t0 := time.Now()
		out, err := a.measure(ctx, dir, fmt.Sprintf("%02d_%s", i+1, fileName(c)), c.Up)
		r.Seconds = time.Since(t0).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.Error = err.Error()
			a.logf("advise: candidate %d skipped: %v", i+1, err)
			rep.Skipped = append(rep.Skipped, r)
			continue
		}
		fill(&r, &c, out, rep.Diagnosis.Noise)
		rep.Recommendations = append(rep.Recommendations, r)
	}
	Rank(rep.Recommendations)
	return rep, nil
}

// majorOf is the leading number of a server version ("16.4 (Debian …)": 16).
func majorOf(version string) int {
	n := 0
	for _, r := range version {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func (a *Advisor) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprintf(a.Log, format+"\n", args...)
	}
}

// measure runs one report-only check of the migration text.
func (a *Advisor) measure(ctx context.Context, dir, name, up string) (*check.Outcome, error) {
	path := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(path, []byte(up), 0o600); err != nil {
		return nil, err
	}
	req := a.Base
	req.Migrations, req.Budgets, req.ReportOnly = []string{path}, nil, true
	out, err := a.Measure(ctx, req)
	if err == nil && (out == nil || out.Result == nil || len(out.Result.Runs) < 2) {
		err = errors.New("the check measured nothing")
	}
	if err != nil {
		return nil, err
	}
	if !out.Restore.OK() {
		return out, fmt.Errorf("the database was not left as it was: %s", out.Restore.Sentence())
	}
	return out, nil
}

func fileName(c Candidate) string {
	n := string(c.Kind) + "_" + c.Object
	if c.Kind == Fillfactor {
		n = strings.ReplaceAll(c.Change, " ", "_")
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, n)
}
