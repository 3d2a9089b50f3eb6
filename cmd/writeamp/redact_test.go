package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// The three leaks of issue 13 item 5, through the commands users run.
func TestPasswordsNeverLeakThroughCommands(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dsn   string
		leaks []string
		want  string
	}{
		// (a) a libpq password with an escaped quote
		{`host=127.0.0.1 port=1 user=u password='it\'s"q%20x' dbname=d`, []string{"q%20x", `s"q`, "it\\"}, "password=xxxxx dbname=d"},
		// (b) a URL password that is not percent-encoded
		{"postgres://u:p@ss:w/rd%@127.0.0.1:1/d", []string{"ss:w", "rd%", "p@ss"}, "--dsn"},
		// (c) a one-letter password: only the password field is masked
		{"postgres://pwuser:s@127.0.0.1:1/d?sslmode=disable", []string{"uxxxxx", "xxxxxer"}, "postgres://pwuser:xxxxx@127.0.0.1:1/d"},
		{"mysql://u:p@ss:w/rd%@127.0.0.1:1/d", []string{"ss:w", "rd%", "p@ss"}, "--dsn"},
		{"app:p@ss:w/rd@tcp(127.0.0.1:1)/d", []string{"ss:w", "p@ss", "rd@"}, "app:xxxxx@tcp(127.0.0.1:1)/d"},
	}
	for _, c := range cases {
		for _, args := range [][]string{{"doctor", "--dsn", c.dsn}, {"run", "-q", "--dsn", c.dsn}, {"snapshot", "--dsn", c.dsn, "-o", "-"}} {
			out, errOut, err := run(t, args...)
			text := out + errOut
			if err != nil {
				text += err.Error()
			}
			for _, l := range c.leaks {
				if strings.Contains(text, l) {
					t.Errorf("%v: %q leaked in %q", args, l, text)
				}
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("%v: want %q in %q", args, c.want, text)
			}
		}
	}
}

// Where the DSN is shown after a successful connect: run's stderr and the
// snapshot file's "where" (trust auth accepts any password).
func TestPasswordWithEscapedQuoteHiddenInSnapshotFile(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	cfg := strings.TrimPrefix(strings.SplitN(dsn, "?", 2)[0], "postgres://")
	user, rest, _ := strings.Cut(cfg, "@")
	hostport, db, _ := strings.Cut(rest, "/")
	host, port, _ := strings.Cut(hostport, ":")
	kv := "host=" + host + " port=" + port + " user=" + user + " dbname=" + db + ` sslmode=disable password='it\'s"q%20x'`
	out := filepath.Join(t.TempDir(), "s.json")
	_, errOut, err := run(t, "snapshot", "--hold-wal=false", "--dsn", kv, "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	var f struct{ Where string }
	json.Unmarshal(data, &f)
	if !strings.Contains(f.Where, "password=xxxxx") || strings.Contains(string(data), "q%20x") || strings.Contains(errOut, "q%20x") {
		t.Errorf("where %q, stderr %q", f.Where, errOut)
	}
}
