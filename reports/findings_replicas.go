package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// syncRepShare is the sampled wait of a commit for its synchronous standby.
const syncRepShare = result.WaitSharePrefix + "IPC.SyncRep"

// replicaFindings are what a single run's log costs its copies: the bytes
// shipped to the standbys and the cluster's whole log, and the share of the
// workload's time its commits waited for a synchronous standby.
func replicaFindings(c *Comparison) []result.Finding {
	if len(c.Columns) == 0 || c.Columns[0].Run == nil {
		return nil
	}
	db := c.Columns[0].Run.Database
	var out []result.Finding
	var names, syncs []string
	for k, m := range db {
		rest, ok := strings.CutPrefix(k, result.ReplicaPrefix)
		if !ok {
			continue
		}
		if name, ok := strings.CutSuffix(rest, ".log_bytes_sent"); ok {
			names = append(names, name)
		}
		if name, ok := strings.CutSuffix(rest, ".synchronous"); ok && m.OK() && m.V() == 1 {
			syncs = append(syncs, name)
		}
	}
	sort.Strings(names)
	sort.Strings(syncs)
	if f, ok := replayFinding(c, 0); ok {
		out = append(out, f)
	}
	subject, verb := who(c)
	if sent, cl := db[result.ReplicasLogBytesSent.Name], db[result.ClusterLogBytes.Name]; sent.OK() && len(names) > 0 {
		var each []string
		for _, n := range names {
			if v, ok := dbValue(c, result.ReplicaPrefix+n+".log_bytes_sent"); ok {
				each = append(each, fmt.Sprintf("%s %s", n, fmtVal(c, result.LogBytes.Name, v)))
			}
		}
		shipped := "shipped"
		if verb == "writes" {
			shipped = "ships"
		}
		sentV, _ := dbValue(c, result.ReplicasLogBytesSent.Name)
		log, copies := "log", "standby(s)"
		if strings.Contains(sent.Source, "binlog_bytes") {
			// MySQL/MariaDB ship the binary log, derived from its bytes.
			log, copies = "binary log", "replica(s)"
		}
		text := fmt.Sprintf("%s %s %s of %s to %d %s (%s)", subject, shipped, fmtVal(c, result.LogBytes.Name, sentV), log, len(names), copies, strings.Join(each, ", "))
		e := sent.Exactness
		if cl.OK() {
			clV, _ := dbValue(c, result.ClusterLogBytes.Name)
			text += fmt.Sprintf(": %s of log in the cluster, the primary's and each copy's", fmtVal(c, result.LogBytes.Name, clV))
			e = result.Weaker(e, cl.Exactness)
		}
		text += exactnessWords(e)
		out = append(out, result.Finding{Metric: result.ReplicasLogBytesSent.Name, Level: "database", Object: "database", Value: ptr(sentV), Exactness: e, Text: text})
	}
	if w := db[result.SemisyncWaitMs.Name]; w.OK() && w.V() > 0 {
		n, acked, unacked := db[result.SemisyncWaits.Name], db[result.SemisyncAckedCommits.Name], db[result.SemisyncUnackedCommits.Name]
		text := fmt.Sprintf("commits waited %.0f ms in all for a semi-synchronous replica to acknowledge them (%.0f waits, %.0f commits acknowledged",
			w.V(), n.V(), acked.V())
		if unacked.OK() && unacked.V() > 0 {
			text += fmt.Sprintf(", %.0f went on unacknowledged after rpl_semi_sync_master_timeout", unacked.V())
		}
		text += "; Rpl_semi_sync_master_tx_wait_time, exact)"
		out = append(out, result.Finding{Metric: result.SemisyncWaitMs.Name, Level: "database", Object: "database", Value: ptr(w.V()), Exactness: w.Exactness, Text: text})
	}
	if w := db[syncRepShare]; w.OK() && w.V() > 0 {
		who := "a synchronous standby"
		if len(syncs) > 0 {
			who = "standby " + strings.Join(syncs, ", ")
		}
		text := fmt.Sprintf("%.0f%% of the workload's active time waited for %s to confirm its commits (IPC.SyncRep: synchronous_standby_names makes each commit wait for the standby's flush; sampled, approx)", 100*w.V(), who)
		out = append(out, result.Finding{Metric: syncRepShare, Level: "database", Object: "database", Value: ptr(w.V()), Exactness: result.Approx, Text: text})
	}
	return out
}

// dbValue is a database metric of the first run as the findings show it
// (per operation when the comparison is).
func dbValue(c *Comparison, metric string) (float64, bool) {
	for _, s := range c.Sections {
		if s.Kind == "database" {
			if cell, ok := rowOf(s, metric); ok {
				return value(c, metric, cell)
			}
		}
	}
	if m := c.Columns[0].Run.Database[metric]; m.OK() {
		return m.V(), true // a JSON-only metric has no row of the tables
	}
	return 0, false
}

// standbyVerb is what a standby did with the log of its cost finding: it
// received it (log_bytes is then received_log_bytes) and replayed it, or,
// when replay did not keep up, only received it.
func standbyVerb(c *Comparison, db Section, replayed Cell, verb string) string {
	per := verb == "writes"
	rc, ok := rowOf(db, result.ReceivedLogBytes.Name)
	switch {
	case !ok || !rc.Metric.OK():
		return map[bool]string{false: "replayed", true: "replays"}[per]
	case replayed.Metric.Exactness == result.Exact:
		return map[bool]string{false: "received and replayed", true: "receives and replays"}[per]
	}
	return map[bool]string{false: "received (not all replayed, see below)", true: "receives (not all replayed, see below)"}[per]
}

// replayFinding says of column i's run, a standby, that it did not replay
// within the window: what it received (exact) beside what it replayed, and
// why (the replay figure's note: paused, or how far behind), so no figure
// read from its replayed WAL passes for the window's cost.
func replayFinding(c *Comparison, i int) (result.Finding, bool) {
	if i >= len(c.Columns) || c.Columns[i].Run == nil {
		return result.Finding{}, false
	}
	rn := c.Columns[i].Run
	rc, rp := rn.Database[result.ReceivedLogBytes.Name], rn.Database[result.ReplayedLogBytes.Name]
	if !rc.OK() || rp.Exactness == result.Exact || rp.Exactness == "" || !strings.Contains(rp.Note, "did not replay") {
		return result.Finding{}, false
	}
	var db Section
	for _, s := range c.Sections {
		if s.Kind == "database" {
			db = s
		}
	}
	show := func(name string, m result.Metric) string {
		if cell, ok := cellOf(db, name, i); ok {
			if v, ok := value(c, name, cell); ok {
				return fmtVal(c, result.LogBytes.Name, v)
			}
		}
		if m.OK() {
			return fmtVal(c, result.LogBytes.Name, m.V())
		}
		return "n/a"
	}
	who, obj := "the standby", "database"
	if i > 0 {
		who, obj = c.Columns[i].Label, c.Columns[i].Label
	}
	why := rp.Note
	if j := strings.Index(why, "did not replay within the window: "); j >= 0 {
		why = why[j+len("did not replay within the window: "):]
	}
	recv, _ := value(c, result.ReceivedLogBytes.Name, Cell{Metric: rc})
	if cell, ok := cellOf(db, result.ReceivedLogBytes.Name, i); ok {
		recv, _ = value(c, result.ReceivedLogBytes.Name, cell)
	}
	text := fmt.Sprintf("%s did not replay within the window: it received %s of log (exact) and replayed %s (%s); its figures read from the replayed WAL (records, index entries, per-object log) are not the window's and are marked approx or unavailable",
		who, show(result.ReceivedLogBytes.Name, rc), show(result.ReplayedLogBytes.Name, rp), why)
	return result.Finding{Metric: result.ReceivedLogBytes.Name, Level: "database", Object: obj, Value: ptr(recv), Exactness: rc.Exactness, Text: text}, true
}
