package testenv

import (
	"os/exec"
	"strings"
	"testing"
)

// make test-unit is the README's "no database, with -race, integration
// tests skip, CI=true or not": its command (make -n prints it) runs go test
// -race -short without the DSNs and without CI, under which a test whose
// DSN is unset fails instead of skipping (DSN).
func TestUnitTargetRunsWithoutDatabasesOrCI(t *testing.T) {
	out, err := exec.Command("make", "-n", "-C", "../../..", "test-unit").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test-unit: %v\n%s", err, out)
	}
	cmd := string(out)
	for _, want := range []string{"-u CI ", "-u WRITEAMP_TEST_PG_DSN ", "-u WRITEAMP_TEST_MYSQL_DSN ", "-u WRITEAMP_TEST_PG_BINS ", " test -race -short "} {
		if !strings.Contains(cmd, want) {
			t.Errorf("make test-unit runs %q: no %q", strings.TrimSpace(cmd), want)
		}
	}
}
