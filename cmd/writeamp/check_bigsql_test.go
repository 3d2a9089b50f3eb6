package main

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// Reading a large migration took minutes (quadratic splitting) and the
// first SIGTERM did not stop it. Now SIGTERM while check reads the SQL
// stops it at once: exit 130, nothing applied.
func TestCheckStopsWhileReadingALargeMigration(t *testing.T) {
	t.Parallel()
	testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_bigsql") // skips without a server: before the build
	bin := buildBinary(t)
	dir := t.TempDir()
	mig := filepath.Join(dir, "big.sql")
	f, err := os.Create(mig)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "create table wa_big (id int primary key, v int);")
	for i := range 300000 { // each one parsed: minutes of reading on any machine
		fmt.Fprintf(w, "update wa_big set v = v + 1 where id = %d;\n", i)
	}
	w.Flush()
	f.Close()
	p := exec.Command(bin, "check", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--", "true")
	stderr, err := p.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "checking on ") {
	}
	time.Sleep(time.Second) // well into the reading
	t0 := time.Now()
	p.Process.Signal(syscall.SIGTERM)
	go func() {
		for lines.Scan() {
		}
	}()
	err = p.Wait()
	took := time.Since(t0)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("SIGTERM while reading: %v, want exit 130", err)
	}
	if took > 10*time.Second {
		t.Errorf("SIGTERM while reading: stopped after %v", took)
	}
	var n int
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.QueryRow("select count(*) from pg_class where relname = 'wa_big'").Scan(&n)
	if n != 0 {
		t.Errorf("the migration was applied")
	}
}
