package main

import (
	"context"
	"net/url"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"

	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
)

// waitSamplerCPU is the wait sampler's own cost while pgbench -c 2 runs for
// secs on a database of its own: the sampler runs in this process, which
// does nothing else meanwhile, so this process's CPU time (pgbench is a
// child, not counted) over the wall time is the share of a client core it
// took. It returns that share and the sampler's source (its mean period and
// how busy its connection was).
func waitSamplerCPU(adminDSN string, secs int) (float64, string) {
	const name = "writeamp_bench_wc"
	ctx := context.Background()
	admin, err := pg.Dialect{}.Open(ctx, adminDSN)
	if err != nil {
		fatal(err.Error())
	}
	defer admin.Close()
	mustExec(admin, "DROP DATABASE IF EXISTS "+name)
	mustExec(admin, "CREATE DATABASE "+name)
	defer mustExec(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	u, err := url.Parse(adminDSN)
	if err != nil {
		fatal("-dsn must be a URL for the sampler rows: " + err.Error())
	}
	u.Path = "/" + name
	dsn := u.String()
	run("pgbench", "-q", "-i", "-s", "1", dsn)
	db, err := pg.Dialect{}.Open(ctx, dsn)
	if err != nil {
		fatal(err.Error())
	}
	defer db.Close()
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		fatal(err.Error())
	}
	sm := pgcollect.PgStatActivity{}
	side, _, err := sm.OpenSampler(ctx, db, s)
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	if side != nil {
		defer side.Close()
		db = side
	}
	load := exec.Command("pgbench", "-n", "-T", strconv.Itoa(secs), "-c", "2", "-j", "2", dsn)
	if err := load.Start(); err != nil {
		fatal("pgbench: " + err.Error())
	}
	time.Sleep(500 * time.Millisecond) // pgbench connected
	cpu0, t0 := selfCPU(), time.Now()
	sampling, err := sm.Start(ctx, db, s, collectors.SampleTarget{})
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	time.Sleep(time.Duration(secs)*time.Second - time.Second)
	cs, err := sampling.Stop()
	cpu, wall := selfCPU()-cpu0, time.Since(t0)
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	if err := load.Wait(); err != nil {
		fatal("pgbench: " + err.Error())
	}
	src := ""
	for _, c := range cs {
		if c.Metric == "wait_samples" {
			src = c.Source
		}
	}
	return cpu.Seconds() / wall.Seconds(), src
}

// selfCPU is this process's user and system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fatal("getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
