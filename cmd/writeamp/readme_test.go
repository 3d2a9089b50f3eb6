package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// The front door's claims are the code's: the connect timeout, the
// PostgreSQL majors, the exit codes and how make test-unit runs. A changed
// figure fails here until the README says it too.
func TestTheREADMEsClaimsAreTheCode(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	claims := []string{
		fmt.Sprintf("Connections time out after %.0f s.", pg.ConnectTimeout.Seconds()),
		fmt.Sprintf("PostgreSQL %d–%d", pgmatrix.Majors[0], pgmatrix.Majors[len(pgmatrix.Majors)-1]),
	}
	for code, what := range map[int]string{
		check.ExitPass: "measured", check.ExitBudget: "check: a budget was exceeded", check.ExitBadInput: "bad input",
		check.ExitNotAsItWas: "check: the database is not as it was", exitInterrupted: "interrupted",
	} {
		claims = append(claims, fmt.Sprintf("| %d | %s", code, what))
	}
	for _, claim := range claims {
		if !strings.Contains(readme, claim) {
			t.Errorf("README does not say %q", claim)
		}
	}
	mk, err := exec.Command("make", "-n", "-C", "../..", "test-unit").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test-unit: %v\n%s", err, mk)
	}
	if strings.Contains(readme, "test-unit") && strings.Contains(readme, "with -race") != strings.Contains(string(mk), " -race ") {
		t.Errorf("README and make test-unit disagree on -race:\n%s", mk)
	}
}
