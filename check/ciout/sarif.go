package ciout

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/writeamp/writeamp/check"
)

// ruleHelp is what code scanning shows for each rule: what it found, why
// it matters for writes, and what to do.
var ruleHelp = []struct{ id, name, short, help string }{
	{RuleBudgetExceeded, "BudgetExceeded", "A write-cost budget was exceeded after the migration",
		"writeamp check measured the workload before and after the migration and a budget (--budget, or the config file's budgets) no longer holds: " +
			"the migration makes these writes more expensive (index entries, HOT updates, WAL/redo bytes, page splits). " +
			"The result names the metric, the object and both measurements. Drop or narrow the index, or raise the budget if the cost is intended; " +
			"a budget marked advisory reports without failing."},
	{RuleBudgetUnevaluated, "BudgetUnevaluated", "A budget could not be evaluated",
		"The budget's metric was unavailable on this server or the object it names was not measured, so the budget neither passed nor failed. " +
			"The message says why (a missing privilege, a server that does not count it); fix that or budget a metric the server reports."},
	{check.RuleIndexOnUpdatedColumn, "IndexOnUpdatedColumn", "The migration indexes a column the workload updates",
		"On PostgreSQL an update of an indexed column can no longer be HOT: each one adds an entry to every index of the table and may move the row. " +
			"On MySQL/MariaDB (InnoDB has no HOT) each such update also delete-marks and inserts an entry of that index. " +
			"Index a column that is not updated, or suppress with -- writeamp:allow index-on-updated-column reason: … when the cost is accepted."},
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool                   `json:"tool"`
	BaseIDs     map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Invocations []sarifInvocation           `json:"invocations"`
	Results     []sarifResult               `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Short   sarifText `json:"shortDescription"`
	Full    sarifText `json:"fullDescription"`
	Help    sarifText `json:"help"`
	Default struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifInvocation struct {
	Successful    bool                `json:"executionSuccessful"`
	Notifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifLocation struct {
	Physical struct {
		Artifact sarifArtifactLoc `json:"artifactLocation"`
		Region   *struct {
			StartLine int `json:"startLine"`
		} `json:"region,omitempty"`
	} `json:"physicalLocation"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"` // inSource (-- writeamp:allow) or external (the config file)
	Justification string `json:"justification"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    int                `json:"ruleIndex"`
	Level        string             `json:"level"`
	Message      sarifText          `json:"message"`
	Locations    []sarifLocation    `json:"locations,omitempty"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

// SARIF writes the problems as a SARIF 2.1.0 log (one run of writeamp,
// its rules with help text, a result per problem at its statement's
// file and line), the format code scanning uploads read. runErr is a
// check that could not measure: the invocation says so.
func SARIF(w io.Writer, o *check.Outcome, runErr error) error {
	d := sarifDriver{Name: "writeamp", InformationURI: "https://github.com/writeamp/writeamp"}
	if o.Result != nil {
		d.Version = o.Result.Tool.Version
	}
	index := map[string]int{}
	for i, r := range ruleHelp {
		sr := sarifRule{ID: r.id, Name: r.name, Short: sarifText{r.short}, Full: sarifText{r.help}, Help: sarifText{r.help}}
		sr.Default.Level = "error"
		if r.id == check.RuleIndexOnUpdatedColumn {
			sr.Default.Level = "warning"
		}
		d.Rules = append(d.Rules, sr)
		index[r.id] = i
	}
	run := sarifRun{Tool: sarifTool{Driver: d}, Results: []sarifResult{}}
	inv := sarifInvocation{Successful: runErr == nil}
	if runErr != nil {
		inv.Notifications = []sarifNotification{{Level: "error", Message: sarifText{runErr.Error()}}}
	}
	run.Invocations = []sarifInvocation{inv}
	for _, p := range Problems(o) {
		r := sarifResult{RuleID: p.Rule, RuleIndex: index[p.Rule], Level: p.Level, Message: sarifText{p.Title + "\n" + p.Text}}
		if p.Path != "" {
			var l sarifLocation
			l.Physical.Artifact = artifact(p.Path)
			if l.Physical.Artifact.URIBaseID != "" {
				run.BaseIDs = map[string]sarifArtifactLoc{"%SRCROOT%": srcRoot()}
			}
			if p.Line > 0 {
				l.Physical.Region = &struct {
					StartLine int `json:"startLine"`
				}{p.Line}
			}
			r.Locations = []sarifLocation{l}
		}
		if s := p.Suppressed; s != nil {
			kind := "external"
			if s.Inline {
				kind = "inSource"
			}
			r.Suppressions = []sarifSuppression{{Kind: kind, Justification: s.Reason}}
		}
		run.Results = append(run.Results, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // budgets hold < and >
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// artifact is a file relative to the repository root (%SRCROOT%), as code
// scanning resolves it; a file outside it is an absolute file: URI.
func artifact(path string) sarifArtifactLoc {
	rel := RepoPath(path)
	if !filepath.IsAbs(filepath.FromSlash(rel)) {
		return sarifArtifactLoc{URI: (&url.URL{Path: rel}).EscapedPath(), URIBaseID: "%SRCROOT%"}
	}
	return sarifArtifactLoc{URI: fileURI(rel)}
}

func srcRoot() sarifArtifactLoc {
	base := repoRoot()
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	u := fileURI(base)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return sarifArtifactLoc{URI: u}
}

func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
