package layering

import (
	"os/exec"
	"strings"
	"testing"
)

// Release builds are static (CGO_ENABLED=0): every package must build
// without cgo, or the archives fail where the tests passed. pg_query_go's
// own Parse is cgo-only; sqlparse.ParsePostgres is the pure-Go way.
func TestEveryPackageBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole module again without cgo; make test runs it")
	}
	cmd := exec.Command("go", "vet", "-tags", "", "../../../...")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("CGO_ENABLED=0 go vet ./...: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
