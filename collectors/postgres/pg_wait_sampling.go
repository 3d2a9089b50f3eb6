package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// waitProfile is pg_wait_sampling's profile as read once: samples per pid
// and state ("Class.Event", "" class = on CPU).
type waitProfile map[profKey]int64

type profKey struct{ pid, class, event string }

// profileSource reads pg_wait_sampling's profile on the wait sampler's own
// connection when the extension is there. Its collector reads every
// process's wait from shared memory every profile_period ms, with no query
// and no snapshot, so its counts are the better wait source: writeamp's
// pg_stat_activity sampler stays the fallback, and the source of what the
// profile cannot give (per-operation shares, time on CPU before 1.1.5).
type profileSource struct {
	conn             *sql.Conn
	sql              string
	version, period  string
	before           waitProfile
	unavailable, why string // why the profile is not the source ("" = it is)
}

// openProfile probes for pg_wait_sampling and reads the window's "before"
// profile. It never fails: what it cannot do is the reason the figures stay
// pg_stat_activity's, said in their note only when the extension exists on
// the server (its library loaded, or created where the sampler reads).
func openProfile(ctx context.Context, conn *sql.Conn, s dialects.Server) *profileSource {
	p := &profileSource{conn: conn}
	probe, err := queries.Get(pg.Name, "pg_wait_sampling_probe", s.VersionNum)
	if err == nil {
		p.sql, err = queries.Get(pg.Name, "pg_wait_sampling_profile", s.VersionNum)
	}
	if err != nil {
		p.unavailable = err.Error()
		return p
	}
	var present bool
	var perPid, here string
	if err := conn.QueryRowContext(ctx, probe).Scan(&present, &p.version, &p.period, &perPid, &here); err != nil {
		p.unavailable = err.Error()
		return p
	}
	switch {
	case !present && p.period != "":
		// Its settings exist only where the library is loaded, so the
		// server has a profile; the view is missing only because CREATE
		// EXTENSION ran elsewhere (typically in the measured database,
		// which the sampler avoids). Falling back silently would hide that
		// the better source is one statement away.
		p.why = fmt.Sprintf("pg_wait_sampling is loaded (shared_preload_libraries) but not created in %s, the database the wait sampler reads from (not the measured %s, whose snapshots it must not hold): the shares are pg_stat_activity's; CREATE EXTENSION pg_wait_sampling in %s makes its profile the source", here, s.Database, here)
		return p
	case !present:
		p.unavailable = "pg_wait_sampling is not created in the sampler's database"
		return p
	case perPid == "off":
		p.why = "pg_wait_sampling.profile_pid is off, so its profile cannot be told apart by session"
		return p
	}
	if p.before, err = p.read(ctx); err != nil {
		p.why = "pg_wait_sampling's profile could not be read (is it in shared_preload_libraries?): " + err.Error()
	}
	return p
}

func (p *profileSource) read(ctx context.Context) (waitProfile, error) {
	rows, err := p.conn.QueryContext(ctx, p.sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := waitProfile{}
	for rows.Next() {
		var k profKey
		var n int64
		if err := rows.Scan(&k.pid, &k.class, &k.event, &n); err != nil {
			return nil, err
		}
		out[k] += n
	}
	return out, rows.Err()
}

// usable says whether the profile is the wait source of this window.
func (p *profileSource) usable() bool { return p != nil && p.unavailable == "" && p.why == "" }

// pidSet is the pids pg_stat_activity saw active (a wrapped command's
// sessions are known only that way).
type pidSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (s *pidSet) add(pid string) {
	s.mu.Lock()
	s.m[pid] = true
	s.mu.Unlock()
}

func (s *pidSet) has(pid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[pid]
}

// activitySampling is the running wait sampler: pg_stat_activity's loop and,
// when pg_wait_sampling is there, its profile at both ends of the window.
type activitySampling struct {
	ctx    context.Context
	shares *collectors.Shares
	prof   *profileSource
	ours   func(pid string) bool
	whose  string // which sessions ours means, for the source
	close  func()
	own    []collectors.Counter
}

// Stop ends the loop, reads the profile again and returns its shares, or
// pg_stat_activity's when the profile cannot be the source.
func (a *activitySampling) Stop() ([]collectors.Counter, error) {
	defer a.close()
	own, err := a.shares.Stop()
	own = labelProcArray(own)
	a.own = own
	if err != nil || !a.prof.usable() {
		if a.prof != nil && a.prof.why != "" {
			own = reNote(own, a.prof.why)
		}
		return own, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(a.ctx), 5*time.Second)
	defer cancel()
	after, err := a.prof.read(ctx)
	if err != nil {
		a.prof.why = "pg_wait_sampling's profile could not be read at the window's end: " + err.Error()
		return reNote(own, a.prof.why), nil
	}
	return profileShares(a.prof, after, a.ours, a.whose, own), nil
}

// ReadTime is pg_stat_activity's mean reading time so far (make bench).
func (a *activitySampling) ReadTime() time.Duration { return a.shares.ReadTime() }

// Sampled is what writeamp's own pg_stat_activity sampler saw (after Stop),
// whichever source the figures came from.
func (a *activitySampling) Sampled() []collectors.Counter { return a.own }

// StdErr is the standard error of pg_stat_activity's share of a wait
// (collectors.Shares.StdErr), after Stop.
func (a *activitySampling) StdErr(classEvent string) float64 { return a.shares.StdErr(classEvent) }

// profileShares puts the profile's counts of the workload's sessions over
// the window in place of the sampled wait shares. The denominator stays the
// active time: Client.ClientRead (waiting for the next command) is idle, and
// a profile with no samples on CPU (pg_wait_sampling 1.1.4) gives the split
// of the waiting time, scaled by the share pg_stat_activity saw on CPU. The
// per-operation shares, wait_samples and active_sessions stay sampled (the
// profile knows no operation). Each share's note gives pg_stat_activity's
// figure, so two sources that disagree are seen.
func profileShares(p *profileSource, after waitProfile, ours func(string) bool, whose string, own []collectors.Counter) []collectors.Counter {
	byState := map[string]int64{}
	var total, idle int64
	for k, n := range after {
		if !ours(k.pid) {
			continue
		}
		d := n - p.before[k]
		if d < 0 {
			p.why = "pg_wait_sampling's profile was reset during the window"
			return reNote(own, p.why)
		}
		if k.class == "Client" && k.event == "ClientRead" {
			idle += d
			continue
		}
		state := k.class + "." + k.event
		if k.class == "" {
			state = "CPU.running"
		}
		byState[state] += d
		total += d
	}
	if total == 0 {
		p.why = fmt.Sprintf("pg_wait_sampling's profile has no active sample of the workload's sessions (%d idle)", idle)
		return reNote(own, p.why)
	}
	sampled := map[string]float64{}
	var keep []collectors.Counter
	for _, c := range own {
		if w, ok := strings.CutPrefix(c.Metric, result.WaitSharePrefix); ok {
			sampled[w] = c.Value
			continue
		}
		keep = append(keep, c)
	}
	scale, cpuNote := 1.0, "its samples on CPU included"
	if byState["CPU.running"] == 0 {
		scale = 1 - sampled["CPU.running"]
		cpuNote = fmt.Sprintf("its split of the waiting samples scaled to the active time by the share pg_stat_activity saw on CPU (%.1f%%), as pg_wait_sampling %s records no sample on CPU", 100*(1-scale), p.version)
	}
	period := p.period
	if period == "" {
		period = "?"
	}
	src := fmt.Sprintf("pg_wait_sampling_profile (extension version %s, a sample every %s ms) diffed over the window, %s: %d active samples (%d idle Client.ClientRead left out); %s", p.version, period, whose, total, idle, cpuNote)
	names := map[string]bool{}
	for w := range byState {
		names[w] = true
	}
	for w := range sampled {
		names[w] = true
	}
	for w := range names {
		if w == "CPU.running" && byState[w] == 0 {
			continue // pg_stat_activity's own, kept below
		}
		v := scale * float64(byState[w]) / float64(total)
		keep = append(keep, collectors.Counter{
			Key:   collectors.NewKey(collectors.DB, "", result.Family(result.WaitSharePrefix+w)),
			Value: v, Exactness: result.Approx, Source: src, Interval: true,
			Note: fmt.Sprintf("pg_stat_activity's sampler: %.1f%%", 100*sampled[w]),
		})
	}
	if byState["CPU.running"] == 0 {
		for _, c := range own {
			if c.Metric == result.WaitSharePrefix+"CPU.running" {
				keep = append(keep, c)
			}
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Metric < keep[j].Metric })
	return keep
}

// procArrayNote is why pg_stat_activity under-counts LWLock.ProcArray
// (a fraction of pg_wait_sampling's share under pgbench TPC-B, issue 27).
const procArrayNote = "under-counted: pg_stat_activity takes ProcArrayLock shared for each session's row (BackendPidGetProc) before it reads that session's wait, so a reading cannot proceed while the lock is held exclusively, the moments sessions wait on it; pg_wait_sampling's profile, when installed, is the better figure"

// labelProcArray notes on pg_stat_activity's ProcArray shares, overall and
// per operation, why they are low.
func labelProcArray(cs []collectors.Counter) []collectors.Counter {
	for i, c := range cs {
		if strings.HasSuffix(c.Metric, ".LWLock.ProcArray") {
			cs[i].Note = joinNotes(c.Note, procArrayNote)
		}
	}
	return cs
}

func reNote(cs []collectors.Counter, note string) []collectors.Counter {
	for i := range cs {
		cs[i].Note = joinNotes(cs[i].Note, note)
	}
	return cs
}
