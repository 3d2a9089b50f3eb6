package postgres

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatReplication marks, on a primary, each connected standby's positions
// in pg_stat_replication (sent, written, flushed and replayed on the
// standby) beside the primary's insert position; ReplicationShipped turns the
// two snapshots' marks into the WAL each standby was shipped in the window.
// Marks, not counters: a standby that connected inside the window has no
// "before", and its position is no count from zero.
type PgStatReplication struct{}

// markReplica prefixes one standby's mark: "pid sent write flush replay insert sync".
const markReplica = "replica:"

func (PgStatReplication) Name() string { return "pg_stat_replication" }

func (PgStatReplication) Supports(s dialects.Server) error {
	if !s.Has(pg.CapPrimary) {
		u := s.Unsupported(pg.CapPrimary)
		u.Text += ": it ships no WAL (a cascading standby's walsenders are not read)"
		return u
	}
	return nil
}

// Marks never fails the snapshot: a primary without standbys, or whose
// view cannot be read, ships nothing writeamp can count, and says so.
func (PgStatReplication) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	out := map[string]string{}
	rows, err := queries.Query(ctx, qr, pg.Name, "pg_stat_replication", s.VersionNum)
	if err != nil {
		out[markReplica] = "error: " + err.Error()
		return out, nil
	}
	defer rows.Close()
	seen := map[string]int{}
	for rows.Next() {
		var name, sent, write, flush, replay, sync, insert string
		if err := rows.Scan(&name, &sent, &write, &flush, &replay, &sync, &insert); err != nil {
			out[markReplica] = "error: " + err.Error()
			return out, nil
		}
		// Two walsenders with one application_name are two standbys.
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		out[markReplica+name] = strings.Join([]string{sent, write, flush, replay, insert, sync}, " ")
	}
	if err := rows.Err(); err != nil {
		out[markReplica] = "error: " + err.Error()
	}
	return out, nil
}

// replicaMark is one standby's positions in one snapshot.
type replicaMark struct {
	pos    [5]float64 // sent, write, flush, replay, insert; -1 = NULL
	sync   string
	broken bool
}

func replicaMarks(snap *collectors.Snapshot) map[string]replicaMark {
	out := map[string]replicaMark{}
	for k, v := range snap.Marks {
		name, ok := strings.CutPrefix(k, markReplica)
		if !ok || name == "" {
			continue
		}
		f := strings.Fields(v)
		var m replicaMark
		if len(f) < 5 {
			m.broken = true
		}
		for i := 0; i < 5 && i < len(f); i++ {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				m.broken = true
			}
			m.pos[i] = x
		}
		if len(f) > 5 {
			m.sync = f[5]
		}
		out[name] = m
	}
	return out
}

// ReplicaMetrics are the per-standby figures, in the order of the marks.
var ReplicaMetrics = []string{"log_bytes_sent", "log_bytes_written", "log_bytes_flushed", "log_bytes_replayed"}

// ReplicationShipped is the WAL shipped to each standby in the window.
type ReplicationShipped struct{}

func (ReplicationShipped) Name() string { return "replication_shipped" }

func (ReplicationShipped) Supports(s dialects.Server) error { return PgStatReplication{}.Supports(s) }

func (ReplicationShipped) CollectInterval(_ context.Context, _ dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	if e, ok := after.Marks[markReplica]; ok {
		return nil, fmt.Errorf("pg_stat_replication: %s", e)
	}
	b, a := replicaMarks(before), replicaMarks(after)
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []collectors.Counter
	var total float64
	totalOK := true
	for _, n := range names {
		am, bm := a[n], b[n]
		_, had := b[n]
		for i, metric := range ReplicaMetrics {
			k := collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+n+"."+metric))
			src := "pg_stat_replication." + []string{"sent", "write", "flush", "replay"}[i] + "_lsn difference on the primary"
			c := collectors.Counter{Key: k, Exactness: result.Exact, Source: src, Interval: true}
			switch {
			case !had:
				c.Exactness, c.Note = result.Unavailable, "the standby connected during the window: it has no position at the start"
			case am.broken || bm.broken || am.pos[i] < 0 || bm.pos[i] < 0:
				c.Exactness, c.Note = result.Unavailable, fmt.Sprintf("pg_stat_replication shows no position for this walsender (NULL: the standby has not reported it, or %s lacks pg_read_all_stats; fix: GRANT pg_read_all_stats TO %s)", s.User, pg.QuoteIdent(s.User))
			case am.pos[i] < bm.pos[i]:
				c.Exactness, c.Note = result.Unavailable, "the standby's position went back (it reconnected from an earlier point)"
			default:
				c.Value = am.pos[i] - bm.pos[i]
				if lag := bm.pos[4] - bm.pos[i]; lag > 0 {
					c.Note = fmt.Sprintf("the standby was %.0f bytes behind at the window's start: this includes WAL written before it", lag)
				}
				if lag := am.pos[4] - am.pos[i]; lag > 0 {
					c.Note = joinNotes(c.Note, fmt.Sprintf("%.0f bytes of the window's WAL were not yet %s at its end", lag, strings.TrimPrefix(metric, "log_bytes_")))
					if metric == "log_bytes_replayed" && am.pos[2] > am.pos[3] {
						// The standby holds WAL it has not replayed (paused, or
						// behind): what it replayed is a part of the window's
						// replay, which it does later.
						c.Exactness = result.Approx
						c.Note = joinNotes(c.Note, fmt.Sprintf("the standby did not replay within the window (%.0f bytes flushed and not replayed at its end: replay paused or lagging)", am.pos[2]-am.pos[3]))
					}
				}
			}
			if c.Exactness == result.Unavailable {
				c.Value = 0
			}
			out = append(out, c)
			if i == 0 {
				if c.Exactness == result.Unavailable {
					totalOK = false
				}
				total += c.Value
			}
		}
		if am.sync != "" {
			out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+n+".synchronous")), Value: boolFloat(am.sync == "sync" || am.sync == "quorum"),
				Exactness: result.Exact, Source: "pg_stat_replication.sync_state at the window's end (" + am.sync + ")", Interval: true})
		}
	}
	out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Replicas), Value: float64(len(names)), Exactness: result.Exact,
		Source: "pg_stat_replication: standbys connected at the window's end", Interval: true})
	if len(names) > 0 {
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.ReplicasLogBytesSent), Value: total, Exactness: result.Exact,
			Source: "sum over the standbys of pg_stat_replication.sent_lsn differences", Interval: true}
		if !totalOK {
			c.Exactness, c.Value, c.Note = result.Unavailable, 0, "a standby's sent bytes are unavailable"
		}
		out = append(out, c)
	}
	return out, nil
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// DeriveCluster adds the log of the whole cluster: what the primary wrote
// and what it sent on to each standby (each copy receives and writes it).
func DeriveCluster(d *collectors.Delta) {
	sent := d.Get(collectors.NewKey(collectors.DB, "", result.ReplicasLogBytesSent))
	wrote := d.Get(collectors.NewKey(collectors.DB, "", result.LogBytes))
	if !sent.OK() || !wrote.OK() || !d.Server.Has(pg.CapPrimary) {
		return
	}
	m := result.New(wrote.V()+sent.V(), result.Derived, "derived: log_bytes + replicas_log_bytes_sent")
	d.Put(collectors.NewKey(collectors.DB, "", result.ClusterLogBytes), m)
}
