package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// waitSamplerCPU is the wait sampler's own cost while pgbench -c 2 runs for
// secs on a database of its own: the sampler runs in this process, which
// does nothing else meanwhile, so this process's CPU time (pgbench is a
// child, not counted) over the wall time is the share of a client core it
// took. The sampler's server backend is read from /proc (its utime and
// stime) when the server runs on this machine: with the client's share that
// is all the CPU sampling takes from the workload. It returns the client's
// and the server backend's shares of a core (server < 0: not readable here)
// and the sampler's source (its mean period and how busy its connection
// was).
func waitSamplerCPU(adminDSN string, secs int) (client, server float64, src string) {
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
	var pid int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		fatal("wait sampler's backend: " + err.Error())
	}
	load := exec.Command("pgbench", "-n", "-T", strconv.Itoa(secs), "-c", "2", "-j", "2", dsn)
	if err := load.Start(); err != nil {
		fatal("pgbench: " + err.Error())
	}
	time.Sleep(500 * time.Millisecond) // pgbench connected
	cpu0, t0 := selfCPU(), time.Now()
	srv0, srvOK := backendCPU(pid)
	sampling, err := sm.Start(ctx, db, s, collectors.SampleTarget{})
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	time.Sleep(time.Duration(secs)*time.Second - time.Second)
	cs, err := sampling.Stop()
	cpu, wall := selfCPU()-cpu0, time.Since(t0)
	srv1, srvOK1 := backendCPU(pid)
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	if err := load.Wait(); err != nil {
		fatal("pgbench: " + err.Error())
	}
	for _, c := range cs {
		if c.Metric == "wait_samples" {
			src = c.Source
		}
	}
	server = -1
	if srvOK && srvOK1 {
		server = (srv1 - srv0).Seconds() / wall.Seconds()
	}
	return cpu.Seconds() / wall.Seconds(), server, src
}

// backendCPU is a server process's user and system time from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s, the kernel's
// USER_HZ on Linux); false when the server is not a process of this machine.
func backendCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 on
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, true
}

// selfCPU is this process's user and system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fatal("getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
