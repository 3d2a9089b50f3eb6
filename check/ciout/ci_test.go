package ciout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
)

// ciOutcome is a check whose migration (a comment, a blank line, then the
// index) fails a HOT budget on jobs and draws the static warning; a second
// file's index is suppressed inline (check's own tests prove that
// suppression; here it is set as check sets it).
func ciOutcome(t *testing.T) (*check.Outcome, string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("GITHUB_WORKSPACE", "")
	os.MkdirAll(filepath.Join(dir, "db", "migrations"), 0o755)
	m1 := filepath.Join(dir, "db", "migrations", "0002_touched.sql")
	os.WriteFile(m1, []byte("-- add an index\n\ncreate index jobs_touched on jobs (touched);\n"), 0o644)
	m2 := filepath.Join(dir, "db", "migrations", "0003_note.sql")
	os.WriteFile(m2, []byte("alter table jobs add column note text;\n-- writeamp:allow index-on-updated-column reason: note is written once, at insert\ncreate index jobs_note on jobs (note);\n"), 0o644)
	files, err := sqlfile.Load("--migration", []string{filepath.Join(dir, "db", "migrations")})
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlfile.Split(sqlparse.Postgres, files); err != nil {
		t.Fatal(err)
	}
	sups, err := check.InlineSuppressions(files)
	if err != nil || len(sups) != 1 || sups[0].Line != 2 {
		t.Fatalf("suppressions %+v %v", sups, err)
	}
	idx, _ := check.IndexesIn(sqlparse.Postgres, files)
	ups := []check.Update{{Table: "jobs", Columns: []string{"note", "touched"}, Example: "update jobs set touched = touched + 1", Source: "w.sql"}}
	o := &check.Outcome{Migration: files, Dialect: sqlparse.Postgres}
	for _, w := range check.Warn(sqlparse.Postgres, idx, ups) {
		if w.Index == "jobs_note" {
			w.Suppressed = &sups[0]
			o.Suppressed = append(o.Suppressed, w)
		} else {
			o.Static = append(o.Static, w)
		}
	}
	if len(o.Static) != 1 || o.Static[0].Index != "jobs_touched" || len(o.Suppressed) != 1 || o.Suppressed[0].Index != "jobs_note" {
		t.Fatalf("static %+v suppressed %+v", o.Static, o.Suppressed)
	}
	o.Verdicts = []budget.Verdict{
		{Budget: "hot_ratio[jobs]>=0.9", Level: "table", Object: "public.jobs", Status: budget.Fail, Message: "0.0% >= 90.0%: FAIL", Hints: []string{"index jobs_touched on jobs was added by the migration"}},
		{Budget: "log_bytes/op<=+5%", Level: "database", Status: budget.Pass},
	}
	return o, dir
}

func TestAnnotationsAtTheStatementLine(t *testing.T) {
	o, _ := ciOutcome(t)
	var b bytes.Buffer
	if err := Annotate(&b, Problems(o)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one annotation for the failed budget and one for the unsuppressed warning, got:\n%s", b.String())
	}
	want := "::error file=db/migrations/0002_touched.sql,line=3,title=writeamp budget exceeded%3A hot_ratio[jobs]>=0.9 on table public.jobs::0.0% >= 90.0%: FAIL%0Aindex jobs_touched on jobs was added by the migration"
	if !strings.Contains(lines[0], "::error file=db/migrations/0002_touched.sql,line=3,") || !strings.HasPrefix(lines[0], want[:60]) {
		t.Errorf("budget annotation:\n got %s\nwant %s", lines[0], want)
	}
	if strings.Contains(lines[0], "\n") || !strings.Contains(lines[0], "%0Aindex jobs_touched") || !strings.Contains(lines[0], "0.0%25 >= 90.0%25") {
		t.Errorf("message not escaped as workflow-command data: %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], "::warning file=db/migrations/0002_touched.sql,line=3,title=writeamp%3A index jobs_touched covers jobs.touched") {
		t.Errorf("static warning annotation: %s", lines[1])
	}
	if strings.Contains(b.String(), "jobs_note") {
		t.Errorf("a suppressed warning was annotated:\n%s", b.String())
	}
}

func TestEscapeProperty(t *testing.T) {
	t.Parallel()
	if got := escapeProperty("a,b:c%d\r\ne"); got != "a%2Cb%3Ac%25d%0D%0Ae" {
		t.Errorf("escapeProperty: %q", got)
	}
	if got := escapeData("a,b:c%d\r\ne"); got != "a,b:c%25d%0D%0Ae" {
		t.Errorf("escapeData: %q", got)
	}
}

// The SARIF log validates against the SARIF 2.1.0 JSON schema (testdata:
// sarif-2.1.0-rtm.5.json as @microsoft/jest-sarif 1.0.0-beta.0 ships it)
// and points at the statement's file and line.
func TestSARIFValidatesAndPointsAtTheStatement(t *testing.T) {
	o, dir := ciOutcome(t)
	for _, runErr := range []error{nil, errors.New("could not measure: psql exited 3")} {
		var b bytes.Buffer
		if err := SARIF(&b, o, runErr); err != nil {
			t.Fatal(err)
		}
		validateSARIF(t, b.Bytes())
		var log struct {
			Version string
			Runs    []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID   string
							Help struct{ Text string }
						}
					}
				}
				OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
				Invocations        []struct {
					ExecutionSuccessful bool
				}
				Results []struct {
					RuleID    string
					Level     string
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI, URIBaseID string } `json:"artifactLocation"`
							Region           struct{ StartLine int }
						}
					}
					Suppressions []struct{ Kind, Justification string }
				}
			}
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		run := log.Runs[0]
		if log.Version != "2.1.0" || len(run.Results) != 3 || run.Invocations[0].ExecutionSuccessful != (runErr == nil) {
			t.Fatalf("sarif:\n%s", b.String())
		}
		for _, r := range run.Tool.Driver.Rules {
			if len(r.Help.Text) < 80 {
				t.Errorf("rule %s: help %q", r.ID, r.Help.Text)
			}
		}
		got := map[string]string{}
		for _, r := range run.Results {
			l := r.Locations[0].PhysicalLocation
			k := r.RuleID + " " + l.ArtifactLocation.URI + ":" + fmt.Sprint(l.Region.StartLine)
			if len(r.Suppressions) > 0 {
				k += " suppressed " + r.Suppressions[0].Kind + ": " + r.Suppressions[0].Justification
			}
			got[k] = r.Level
		}
		for k, level := range map[string]string{
			"budget-exceeded db/migrations/0002_touched.sql:3":                                                           "error",
			"index-on-updated-column db/migrations/0002_touched.sql:3":                                                   "warning",
			"index-on-updated-column db/migrations/0003_note.sql:3 suppressed inSource: note is written once, at insert": "warning",
		} {
			if got[k] != level {
				t.Errorf("no %s result %q; got %v", level, k, got)
			}
		}
		if root := run.OriginalURIBaseIDs["%SRCROOT%"].URI; !strings.HasPrefix(root, "file://") || !strings.HasSuffix(root, filepath.Base(dir)+"/") {
			t.Errorf("%%SRCROOT%% %q, want the working directory %s", root, dir)
		}
	}
}

// testdataAbs is read before a test changes directory.
var testdataAbs, _ = filepath.Abs("testdata")

func validateSARIF(t *testing.T, doc []byte) {
	t.Helper()
	f, err := os.Open(filepath.Join(testdataAbs, "sarif-2.1.0-rtm.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-2.1.0.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF does not validate against the 2.1.0 schema: %v\n%s", err, doc)
	}
}
