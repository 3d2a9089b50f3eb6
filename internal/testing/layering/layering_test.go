package layering

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/writeamp/writeamp/"

// layers, lowest first. A package may depend on any package of a lower
// layer and on none of its own or a higher one. A new package goes in one.
var layers = [][]string{
	{"internal/safeio", "internal/termwidth", "sqlparse", "queries", "pgembed", "internal/kernelwait"},
	{"result", "dialects", "internal/scratch", "check/sqlfile"},
	{"dialects/mysql", "dialects/oracle", "dialects/postgres", "dialects/sqlserver", "budget", "workloads/owned"},
	// check/restore, how a check puts the database back and proves it, sits
	// below measuring: it names no window, collector or report
	{"collectors", "config", "check/restore"},
	{"collectors/mysql", "collectors/oracle", "collectors/postgres", "collectors/sqlserver", "workloads", "explain"},
	{"measure"},
	// what is shown of a result sits above what measures it
	{"reports", "capacity"},
	// a workload's own package may render its claims through reports
	{"workloads/refreshtoken"},
	{"check", "doctor"},
	// what a check found, written for people and CI, above what decides it
	{"check/ciout", "advise"},
}

// top is where commands (cmd/...) and test support (internal/testing/...)
// sit: above every layer, so they may import any package of the module
// and no package of the layers may import them.
func top(p string) bool {
	return strings.HasPrefix(p, "cmd/") || strings.HasPrefix(p, "internal/testing/")
}

// generic packages depend on no dialect's or workload's own package, even
// where the layers would let them.
var generic = []string{"result", "reports", "budget", "capacity", "collectors", "workloads", "measure", "check", "check/ciout", "check/sqlfile", "check/restore"}

func specific(p string) bool {
	for _, dir := range []string{"dialects/", "collectors/", "workloads/"} {
		if rest, ok := strings.CutPrefix(p, dir); ok && rest != "owned" {
			return true
		}
	}
	return false
}

// deps is every package of the module with its module dependencies.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "github.com/writeamp/writeamp/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p, _ := strings.CutPrefix(f[0], module)
		for _, d := range f[1:] {
			if d, ok := strings.CutPrefix(d, module); ok {
				m[p] = append(m[p], d)
			}
		}
		if m[p] == nil {
			m[p] = []string{}
		}
	}
	return m
}

func layerOf(p string) int {
	if top(p) {
		return len(layers)
	}
	for i, l := range layers {
		if slices.Contains(l, p) {
			return i
		}
	}
	return -1
}

func TestNoImportRunsUpTheLayers(t *testing.T) {
	for p, ds := range deps(t) {
		lp := layerOf(p)
		if lp < 0 {
			t.Errorf("%s is in no layer: add it to layers in internal/testing/layering", p)
			continue
		}
		for _, d := range ds {
			if ld := layerOf(d); ld >= lp && !top(p) {
				t.Errorf("%s (layer %d) depends on %s (layer %d): an import runs up (or across) the layering", p, lp, d, ld)
			}
			if slices.Contains(generic, p) && specific(d) {
				t.Errorf("%s is generic and depends on %s: reach it through the dialect or workload interfaces and the registry", p, d)
			}
		}
	}
}
