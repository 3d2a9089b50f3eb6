package mocksql

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A test whose code no longer sends an expected statement, or sends one
// with other text, must fail: that is what the helper is for. The test
// runs itself again in a child process for each case and reads the
// child's verdict.
func TestUnmetOrChangedStatementsFail(t *testing.T) {
	switch os.Getenv("MOCKSQL_CASE") {
	case "unmet":
		_, mock := New(t)
		mock.ExpectQuery("SELECT 1")
		return
	case "changed":
		db, mock := New(t)
		mock.ExpectQuery("SELECT 1").WillReturnRows(mock.NewRows([]string{"x"}).AddRow(1))
		db.QueryRow("SELECT 2").Scan(new(int))
		return
	}
	for _, c := range []string{"unmet", "changed"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnmetOrChangedStatementsFail$", "-test.v")
		cmd.Env = append(os.Environ(), "MOCKSQL_CASE="+c)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--- FAIL: TestUnmetOrChangedStatementsFail") ||
			!strings.Contains(string(out), "matches sql: 'SELECT 1'") {
			t.Errorf("%s: the child passed or failed for another reason (%v):\n%s", c, err, out)
		}
	}
}
