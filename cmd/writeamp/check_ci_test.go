package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A migration repository on the test server: under GitHub Actions the
// failed HOT budget is an ::error at the index's line (after a comment and
// a blank line), and --sarif puts the result at the same file and line.
func TestCheckAnnotatesAndWritesSARIFAtTheMigrationLine(t *testing.T) {
	psql := testenv.Tool(t, "psql")
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", dir)
	dsn := scratchDB(t, "wa_test_check_ci")
	base := write(t, dir, "base.sql", "create table jobs (id int primary key, touched int) with (fillfactor = 50);\ninsert into jobs select g, 0 from generate_series(1, 500) g;\n")
	work := write(t, dir, "w.sql", "update jobs set touched = touched + 1 where id <= 300;\n")
	os.MkdirAll(filepath.Join(dir, "db", "migrations"), 0o755)
	m := write(t, dir, "db/migrations/0002_touched.sql", "-- add an index\n\ncreate index jobs_touched on jobs (touched);\n")
	sarif := filepath.Join(dir, "r.sarif")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--schema", base, "--migration", m, "--budget", "hot_ratio[jobs]>=0.9",
		"--sarif", sarif, "--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", work)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1\n%s", exitCode(err), err, out)
	}
	for _, want := range []string{
		"::error file=db/migrations/0002_touched.sql,line=3,title=writeamp budget exceeded%3A hot_ratio[jobs]>=0.9 on table ",
		"::warning file=db/migrations/0002_touched.sql,line=3,title=writeamp%3A index jobs_touched covers jobs.touched",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		l := r.Locations[0].PhysicalLocation
		found[r.RuleID] = found[r.RuleID] || l.ArtifactLocation.URI == "db/migrations/0002_touched.sql" && l.Region.StartLine == 3
	}
	if !found["budget-exceeded"] || !found["index-on-updated-column"] {
		t.Errorf("SARIF results not at db/migrations/0002_touched.sql:3: %v\n%s", found, data)
	}
}

// A suppression without a reason is bad input naming the file and line,
// refused before anything connects.
func TestCheckRefusesASuppressionWithoutAReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := write(t, dir, "0003_noreason.sql", "-- writeamp:allow index-on-updated-column\ncreate index jobs_touched on jobs (touched);\n")
	_, _, err := run(t, "check", "-q", "--dsn", closedPG, "--migration", m, "--budget", "hot_ratio>=0.9", "--", "true")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "0003_noreason.sql:1: -- writeamp:allow index-on-updated-column has no reason") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}

// measure --format openmetrics on the test server: the file parses as
// OpenMetrics, holds the leaf inserts of the table's primary key, and the
// same metrics reach a local server playing the Pushgateway.
func TestMeasureOpenMetricsAndPush(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dir := t.TempDir()
	dsn := scratchDB(t, "wa_test_openmetrics")
	if out, err := exec.Command(psql, dsn, "-Xq", "-v", "ON_ERROR_STOP=1", "-c", "create table jobs (id int primary key, touched int)").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var pushed []byte
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.Method + " " + r.URL.Path
		pushed, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	prom := filepath.Join(dir, "m.prom")
	out, stderr, err := run(t, "measure", "-q", "--dsn", dsn, "--format", "openmetrics", "-o", prom, "--push", srv.URL,
		"--", psql, dsn, "-Xq", "-c", "insert into jobs select g, 0 from generate_series(1, 400) g")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	data, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	dec := expfmt.NewDecoder(bytes.NewReader(data), expfmt.NewFormat(expfmt.TypeOpenMetrics))
	leaf := -1.0
	for {
		var f dto.MetricFamily
		if err := dec.Decode(&f); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("OpenMetrics parser: %v\n%s", err, data)
		}
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if f.GetName() == "writeamp_leaf_inserts" && l.GetName() == "index" && l.GetValue() == "jobs_pkey" {
					leaf = m.GetGauge().GetValue()
				}
			}
		}
	}
	if leaf != 400 {
		t.Errorf("writeamp_leaf_inserts{index=jobs_pkey} = %v, want 400 (one per row inserted)\n%s", leaf, data)
	}
	if path != "PUT /metrics/job/writeamp" || !bytes.Contains(pushed, []byte(`writeamp_leaf_inserts{dialect="postgres"`)) {
		t.Errorf("push: %s\n%s", path, pushed)
	}
	if _, _, err := run(t, "measure", "--dsn", closedPG, "--push", "pushgateway:9091", "--", "true"); exitCode(err) != 2 || !strings.Contains(err.Error(), "--push") {
		t.Errorf("a bad --push: exit %d %v", exitCode(err), err)
	}
}
