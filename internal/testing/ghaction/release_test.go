package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The release workflow publishes what the Action installs: on a v* tag,
// make dist with the tag as the version (the archive names carry it, and
// action-install.sh asks for <tag>/writeamp_<tag>_<os>_<arch>), then every
// file of dist/ (SHA256SUMS included) as the tag's release.
func TestTheReleaseWorkflowPublishesMakeDist(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("release.yml is not YAML: %v", err)
	}
	if len(wf.On.Push.Tags) != 1 || wf.On.Push.Tags[0] != "v*" {
		t.Errorf("triggered by tags %v, want v*", wf.On.Push.Tags)
	}
	if wf.Permissions["contents"] != "write" {
		t.Errorf("permissions %v: creating a release needs contents: write", wf.Permissions)
	}
	var dist, publish int
	for i, s := range wf.Jobs["release"].Steps {
		if strings.Contains(s.Run, `make dist VERSION="$GITHUB_REF_NAME"`) {
			dist = i + 1
		}
		if strings.Contains(s.Run, `gh release create "$GITHUB_REF_NAME" dist/*`) {
			publish = i + 1
		}
	}
	if dist == 0 || publish <= dist {
		t.Errorf("want make dist with the tag as VERSION, then gh release create of dist/* (steps %d, %d)", dist, publish)
	}
	install, err := os.ReadFile(filepath.Join(root, "scripts", "action-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(install), "https://github.com/writeamp/writeamp/releases/download") {
		t.Error("action-install.sh no longer fetches from this repository's releases")
	}
}
