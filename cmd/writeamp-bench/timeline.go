package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// samplerOverhead is what a sampler costs a workload: pgbench's own TPS
// under `writeamp measure` with the flags that turn it on (with) and
// those that leave it off (without), in pairs run alternately (ABBA: with,
// without, without, with ...) so that the machine's drift cancels, on a
// database of its own. The ratio is the median of the pairs'; the spread
// of the pairs is printed beside it, since the shared machine's noise is
// larger than the effect.
func samplerOverhead(db *sql.DB, adminDSN string, pairs, secs int, withFlags, withoutFlags []string) (with, without, ratio, lo, hi float64) {
	const name = "writeamp_bench_tl"
	mustExec(db, "DROP DATABASE IF EXISTS "+name)
	mustExec(db, "CREATE DATABASE "+name)
	defer mustExec(db, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	u, err := url.Parse(adminDSN)
	if err != nil {
		fatal("-dsn must be a URL for the sampler row: " + err.Error())
	}
	u.Path = "/" + name
	dsn := u.String()
	run("pgbench", "-q", "-i", "-s", "1", dsn)

	tps := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	out := filepath.Join(os.TempDir(), "writeamp-bench-tl.json")
	defer os.Remove(out)
	once := func(on bool) float64 {
		args := []string{"measure", "-q", "--dsn", dsn, "--format", "json", "-o", out}
		if on {
			args = append(args, withFlags...)
		} else {
			args = append(args, withoutFlags...)
		}
		args = append(args, "--", "pgbench", "-n", "-T", strconv.Itoa(secs), "-c", "2", "-j", "2", dsn)
		b, err := exec.Command(*binary, args...).CombinedOutput()
		if err != nil {
			fatal(fmt.Sprintf("writeamp measure: %v\n%s", err, b))
		}
		m := tps.FindSubmatch(b)
		if m == nil {
			fatal("no tps in pgbench's output:\n" + string(b))
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	var ratios, ws, wos []float64
	for i := 0; i < pairs; i++ {
		var w, wo float64
		if i%2 == 0 {
			w, wo = once(true), once(false)
		} else {
			wo, w = once(false), once(true)
		}
		ws, wos, ratios = append(ws, w), append(wos, wo), append(ratios, w/wo)
	}
	sort.Float64s(ratios)
	with, without = median(ws), median(wos)
	ratio, lo, hi = median(ratios), ratios[0], ratios[len(ratios)-1]
	return with, without, ratio, lo, hi
}

// timelineReadCost is one reading of the interval sampler, measured alone.
func timelineReadCost(ctx context.Context, db *sql.DB, s dialects.Server) time.Duration {
	src, _ := collectors.TimelineFor(pg.Name)
	conn, err := db.Conn(ctx)
	if err != nil {
		fatal(err.Error())
	}
	defer conn.Close()
	const reads = 50
	t0 := time.Now()
	for i := 0; i < reads; i++ {
		if _, err := src.Read(ctx, conn, s, nil); err != nil {
			fatal("timeline read: " + err.Error())
		}
	}
	return time.Since(t0) / reads
}

// waitReadCost is one reading of the wait sampler as a window runs it (from
// its own database of the cluster), measured alone for a second: the
// sampler's own mean reading time.
func waitReadCost(ctx context.Context, db *sql.DB, s dialects.Server) time.Duration {
	sm := pgcollect.PgStatActivity{}
	side, note, err := sm.OpenSampler(ctx, db, s)
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	if side == nil {
		fmt.Fprintln(os.Stderr, "bench: "+note)
		side = db
	} else {
		defer side.Close()
	}
	sampling, err := sm.Start(ctx, side, s, collectors.SampleTarget{})
	if err != nil {
		fatal("wait sampler: " + err.Error())
	}
	time.Sleep(time.Second)
	sh, ok := sampling.(interface{ ReadTime() time.Duration })
	if !ok {
		fatal(fmt.Sprintf("wait sampler: %T does not say its reading time", sampling))
	}
	d := sh.ReadTime()
	if _, err := sampling.Stop(); err != nil {
		fatal("wait sampler: " + err.Error())
	}
	if d == 0 {
		fatal("wait sampler: no samples in a second")
	}
	return d
}

func median(xs []float64) float64 {
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}
