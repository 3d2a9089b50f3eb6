package main

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A password on the wrapped command's line (env PGPASSWORD=…, MYSQL_PWD=…,
// a URL's user info, --password=…, a shell string) never leaves writeamp:
// not on stdout or stderr, not in the report, the result JSON, JUnit or the
// step summary, for measure and check alike. The command's DSN carries a
// password the --dsn lacks, so check cannot point it at a copy: --in-place
// measures it on the database; by default it writes the database itself,
// which check reports (exit 3) without showing the password either.
func TestNoSecretOfTheCommandLineLeavesWriteamp(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	bin := buildBinary(t)
	dsn := scratchDB(t, "wa_test_secrets")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table t (id int primary key, v int); insert into t select g, 0 from generate_series(1, 50) g"); err != nil {
		t.Fatal(err)
	}
	const secret = "Pw4WriteampLeakTest"
	withPw := strings.Replace(dsn, "://postgres@", "://postgres:"+secret+"@", 1)
	if withPw == dsn {
		t.Fatalf("cannot put a password into %s", dsn)
	}
	dir := t.TempDir()
	mig := write(t, dir, "m.sql", "create index t_v on t (v);\n")
	command := []string{"--", "env", "PGPASSWORD=" + secret, "MYSQL_PWD=" + secret, psql, withPw, "-Xq",
		"-v", "pw=--password=" + secret, "-c", "update t set v = v + 1 where id <= 20"}
	shell := []string{"--", "sh", "-c", "PGPASSWORD='" + secret + "' " + psql + " '" + withPw + "' -Xq -c 'update t set v = v + 1'"}
	summary := filepath.Join(dir, "summary.md")
	for _, c := range []struct {
		name     string
		args     []string
		files    []string
		copyMode bool // exit 3 expected: the command reaches the database itself
	}{
		{"measure json", append([]string{"measure", "--dsn", dsn, "--format", "json", "-o", filepath.Join(dir, "m.json")}, command...), []string{"m.json"}, false},
		{"measure table", append([]string{"measure", "--dsn", dsn}, shell...), nil, false},
		{"measure markdown", append([]string{"measure", "--dsn", dsn, "--format", "markdown"}, command...), nil, false},
		{"check", append([]string{"check", "--in-place", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--format", "markdown",
			"-o", filepath.Join(dir, "c.md"), "--junit", filepath.Join(dir, "c.xml"), "--result", filepath.Join(dir, "c.json")}, command...),
			[]string{"c.md", "c.xml", "c.json", "summary.md"}, false},
		{"check shell", append([]string{"check", "--in-place", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--format", "json"}, shell...), []string{"summary.md"}, false},
		{"check copy", append([]string{"check", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--format", "json"}, command...), []string{"summary.md"}, true},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		runErr := cmd.Run()
		var ee *exec.ExitError
		ok := errors.As(runErr, &ee)
		switch {
		case c.copyMode && (!ok || ee.ExitCode() != 3):
			t.Errorf("%s: %v, want exit 3 (the command wrote the database itself, not the copy)\n%s", c.name, runErr, errb.String())
		case !c.copyMode && runErr != nil && (!ok || ee.ExitCode() > 1):
			t.Fatalf("%s: %v\n%s", c.name, runErr, errb.String())
		}
		texts := map[string]string{"stdout": out.String(), "stderr": errb.String()}
		for _, f := range c.files {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			texts[f] = string(b)
		}
		for where, text := range texts {
			if strings.Contains(text, secret) {
				i := strings.Index(text, secret)
				t.Errorf("%s: the password is in %s: …%s…", c.name, where, text[max(0, i-80):min(len(text), i+40)])
			}
		}
		if !strings.Contains(texts["stdout"]+texts["stderr"]+texts[firstOr(c.files)], "xxxxx") {
			t.Errorf("%s: the command line is not shown at all (masked)", c.name)
		}
	}
}

func firstOr(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return files[0]
}
