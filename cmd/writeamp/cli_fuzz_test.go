package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// FuzzCLIFlags runs the whole command line parser and each command's
// validation on fuzzed arguments: nothing may panic, and a usage error is
// one line. The context is cancelled from the start and the only database
// is a closed port, so no input can reach a server, start the throwaway
// PostgreSQL or run a command; arguments naming paths outside the working
// directory (a temporary one with a result, a snapshot and a SQL file) or
// a DSN are skipped.
func FuzzCLIFlags(f *testing.F) {
	for _, s := range []string{
		"run --logout-percent NaN",
		"run --users-per-second 1e-300 --logins 10",
		"run --refresh-period 2562047h",
		"run --concurrency 1,8,8 --variants coarse,baseline",
		"run --buckets 40000 --fillfactor 9 --max-idle 1ns --seed 18446744073709551615",
		"check --migration m.sql --budget log_bytes/op<=+5% --budget nosuch>=1 --logins NaN",
		"check --migration m.sql --scope-schema a\"b -- true",
		"measure --schema a\"b --table x,\"y --label \"q -- true",
		"measure --operations -1 -- true",
		"snapshot -o out.json --schema \"A\",b",
		"compare r.json r.json --label a,\"b --format html -o out.html",
		"plan r.json --rate 1e308/s --ceiling NaNMiB/s --vcores 99999999999",
		"diff s.json s.json --format csv",
		"doctor --format yaml --strict",
		"clean --drop --schema writeamp_rt_x_baseline",
		"completion fish",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	fixture, err := os.ReadFile(filepath.Join("..", "..", "reports", "testdata", "refresh_token_pg15.json"))
	if err != nil {
		f.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "r.json"), fixture, 0o644)
	os.WriteFile(filepath.Join(dir, "m.sql"), []byte("create index i on t (a);"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"kind":"writeamp-snapshot","schema_version":1}`), 0o644)
	// Not f.Chdir: the fuzzing coordinator finds testdata/ relative to the
	// package directory, so the working directory changes only around each
	// execution (a worker runs them one at a time).
	home, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	f.Setenv("GITHUB_STEP_SUMMARY", "")
	// What run and check accept must make a schedule that does not panic
	// and whose timestamps fit the workload's int columns.
	beforeConnect := func(wl workloads.Workload) {
		p := wl.(*refreshtoken.Workload).P
		small := p
		small.Logins = min(p.Logins, 100)
		plan := refreshtoken.New(small)
		if plan.TotalOperations() < int64(small.Logins) {
			panic(fmt.Sprintf("accepted %+v: a plan of %d operations", p, plan.TotalOperations()))
		}
		arrival := int64(1000 / p.UsersPerSecond)
		last := refreshtoken.Epoch + (int64(p.Logins-1)*arrival+int64(p.RefreshesPerLogin)*p.RefreshPeriod.Milliseconds())/1000
		if arrival < 0 || p.RefreshPeriod.Milliseconds() <= 0 || last > math.MaxInt32 {
			panic(fmt.Sprintf("accepted %+v: timestamps up to %d do not fit an int column", p, last))
		}
	}
	f.Setenv("WRITEAMP_DSN", "postgres://fuzz@127.0.0.1:1/fuzz?connect_timeout=1&sslmode=disable")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		for _, a := range args {
			if strings.ContainsAny(a, "/\\") && !strings.Contains(a, "/op") && !strings.HasSuffix(a, "/s") || strings.Contains(strings.ToLower(a), "dsn") || strings.Contains(a, "..") {
				return
			}
		}
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(home)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		root := newRootFor(&app{stderr: io.Discard, beforeConnect: beforeConnect})
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(args)
		err := root.ExecuteContext(ctx)
		var ue usageError
		if err != nil && errors.As(err, &ue) && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: a usage error of more than one line: %q", line, err)
		}
	})
}
