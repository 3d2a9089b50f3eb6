package mocksql

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A test whose code no longer sends an expected statement, or sends one
// with other text, must fail: that is what the helper is for. The failing
// tests run in a child process, so this test can look at their verdict.
func TestUnmetOrChangedStatementsFail(t *testing.T) {
	if os.Getenv("MOCKSQL_CHILD") != "" {
		t.Skip("the child's own cases run instead")
	}
	for name, want := range map[string]string{
		"TestChildUnmet":   "there is a remaining expectation which was not matched",
		"TestChildChanged": "matches sql: 'SELECT 1'",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
		cmd.Env = append(os.Environ(), "MOCKSQL_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--- FAIL: "+name) || !strings.Contains(string(out), want) {
			t.Errorf("%s passed or failed for another reason (%v):\n%s", name, err, out)
		}
	}
}

func TestChildUnmet(t *testing.T) {
	if os.Getenv("MOCKSQL_CHILD") == "" {
		t.Skip("run by TestUnmetOrChangedStatementsFail")
	}
	_, mock := New(t)
	mock.ExpectQuery("SELECT 1")
}

func TestChildChanged(t *testing.T) {
	if os.Getenv("MOCKSQL_CHILD") == "" {
		t.Skip("run by TestUnmetOrChangedStatementsFail")
	}
	db, mock := New(t)
	mock.ExpectQuery("SELECT 1").WillReturnRows(mock.NewRows([]string{"x"}).AddRow(1))
	db.QueryRow("SELECT 2").Scan(new(int))
}
