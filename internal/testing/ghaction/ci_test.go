package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The pull-request workflow runs what CONTRIBUTING.md asks of a change:
// make lint, the unit tests with the race detector, and the live suite
// (make test under CI=true, where an unreachable database fails).
func TestTheCIWorkflowRunsLintRaceAndTheLiveSuite(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("ci.yml is not YAML: %v", err)
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Errorf("ci.yml is not triggered by pull requests: on %v", wf.On)
	}
	runs := func(job string) string {
		var all []string
		for _, s := range wf.Jobs[job].Steps {
			all = append(all, s.Run)
		}
		return strings.Join(all, "\n")
	}
	if !strings.Contains(runs("lint"), "make lint") {
		t.Errorf("job lint does not run make lint: %q", runs("lint"))
	}
	if r := runs("unit"); !strings.Contains(r, "go test") || !strings.Contains(r, "-race") || !strings.Contains(r, "-short") {
		t.Errorf("job unit does not run the unit tests with -race: %q", r)
	}
	if !strings.Contains(runs("live"), "make test") || wf.Jobs["live"].Env["CI"] != "true" {
		t.Errorf("job live does not run make test under CI=true: %q, env %v", runs("live"), wf.Jobs["live"].Env)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"lint:", "test:"} {
		if !strings.Contains(string(mk), "\n"+target) {
			t.Errorf("the Makefile has no %s target the workflow runs", target)
		}
	}
}
