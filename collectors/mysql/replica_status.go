package mysql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// ReplicaStatus marks, on a replica, each replication connection's
// positions in its primary's binary log (received by the IO thread, applied
// by the SQL thread) and the transactions applied; ReplicaApplied turns two
// snapshots' marks into what the window received and applied. Positions are
// marks, not counters: they restart in each binlog file.
type ReplicaStatus struct{}

const (
	markReplicaConn  = "replica_conn:"
	markReplicaError = "replica_status_error"
	markGtidRows     = "gtid_slave_pos_rows"
)

func (ReplicaStatus) Name() string { return "replica_status" }

// Supports is nil on a server that replicates from nobody, where it reads
// nothing (listing it missing in every report would be noise), and an error
// only when this login cannot tell.
func (ReplicaStatus) Supports(s dialects.Server) error {
	if k := s.Reason(my.CapReplica).Kind; !s.Has(my.CapReplica) && (k == dialects.Privilege || k == dialects.Unreadable) {
		return s.Unsupported(my.CapReplica)
	}
	return nil
}

// Marks never fails the snapshot: what cannot be read is recorded and the
// interval collector says so.
func (ReplicaStatus) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(my.CapReplica) {
		return nil, nil
	}
	out := map[string]string{}
	stmt, err := queries.Get(my.Name, "replica_status", s.VersionNum)
	var rows []my.ReplicaRow
	if err == nil {
		rows, err = my.ReadShow(ctx, qr, stmt)
	}
	if err != nil {
		out[markReplicaError] = err.Error()
		return out, nil
	}
	for _, r := range rows {
		groups := "-"
		if g, ok := appliedGroups(r); ok {
			groups = strconv.FormatFloat(g, 'f', 0, 64)
		}
		out[markReplicaConn+r.Get("Connection_name", "Channel_Name")] = strings.Join([]string{
			orDash(r.Get(my.ColMasterFile...)), orDash(r.Get(my.ColReadPos...)),
			orDash(r.Get(my.ColRelayMasterFile...)), orDash(r.Get(my.ColExecPos...)), groups}, " ")
	}
	if my.IsMariaDB(s) {
		if stmt, err := queries.Get(my.Name, "gtid_slave_pos_rows", s.VersionNum); err == nil {
			var n int64
			if qr.QueryRowContext(ctx, stmt).Scan(&n) == nil {
				out[markGtidRows] = strconv.FormatInt(n, 10)
			}
		}
	}
	return out, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// appliedGroups is MariaDB's count of event groups (transactions and DDL)
// the applier has applied since it started.
func appliedGroups(r my.ReplicaRow) (float64, bool) {
	var sum float64
	for _, c := range []string{"Slave_DDL_Groups", "Slave_Non_Transactional_Groups", "Slave_Transactional_Groups"} {
		v, err := strconv.ParseFloat(r[c], 64)
		if err != nil {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// connMark is one connection's positions in one snapshot.
type connMark struct {
	readFile, execFile string
	read, exec, groups float64
	hasGroups, broken  bool
}

func connMarks(snap *collectors.Snapshot) map[string]connMark {
	out := map[string]connMark{}
	for k, v := range snap.Marks {
		name, ok := strings.CutPrefix(k, markReplicaConn)
		if !ok {
			continue
		}
		f := strings.Fields(v)
		var m connMark
		if len(f) != 5 {
			m.broken = true
			out[name] = m
			continue
		}
		var e1, e2 error
		m.readFile, m.execFile = f[0], f[2]
		m.read, e1 = strconv.ParseFloat(f[1], 64)
		m.exec, e2 = strconv.ParseFloat(f[3], 64)
		m.broken = e1 != nil || e2 != nil
		if g, err := strconv.ParseFloat(f[4], 64); err == nil {
			m.groups, m.hasGroups = g, true
		}
		out[name] = m
	}
	return out
}

// ReplicaApplied is what a replica received from its primary and applied in
// the window, from the positions ReplicaStatus marked.
type ReplicaApplied struct{}

func (ReplicaApplied) Name() string { return "replica_applied" }

func (ReplicaApplied) Supports(s dialects.Server) error { return ReplicaStatus{}.Supports(s) }

// MarksOnly: a diff of two snapshot files computes it without a connection.
func (ReplicaApplied) MarksOnly() {}

func (ReplicaApplied) CollectInterval(_ context.Context, _ dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	if !s.Has(my.CapReplica) {
		return nil, nil
	}
	if e, ok := after.Marks[markReplicaError]; ok {
		return nil, fmt.Errorf("SHOW REPLICA STATUS: %s", e)
	}
	b, a := connMarks(before), connMarks(after)
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	var recv, applied, groups float64
	var why []string
	groupsOK := true
	for _, n := range names {
		am, bm := a[n], b[n]
		_, had := b[n]
		label := "the replication connection"
		if n != "" {
			label += " " + n
		}
		switch {
		case !had || am.broken || bm.broken:
			why = append(why, label+" has no position at the window's start (it was set up inside the window, or its positions did not read)")
			continue
		case am.readFile != bm.readFile || am.execFile != bm.execFile:
			why = append(why, fmt.Sprintf("%s moved to another binary log file of the primary inside the window (%s to %s): positions restart in each file and the replica does not show the files' sizes", label, bm.readFile, am.readFile))
			continue
		case am.read < bm.read || am.exec < bm.exec:
			why = append(why, label+"'s positions went back (CHANGE MASTER or a reset inside the window)")
			continue
		}
		recv += am.read - bm.read
		applied += am.exec - bm.exec
		if am.hasGroups && bm.hasGroups {
			groups += am.groups - bm.groups
		} else {
			groupsOK = false
		}
	}
	out := []collectors.Counter{}
	put := func(m *result.Info, v float64, src string) {
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", m), Value: v, Exactness: result.Exact, Source: src, Interval: true}
		if len(why) > 0 {
			c.Value, c.Exactness, c.Note = 0, result.Unavailable, strings.Join(why, "; ")
		}
		out = append(out, c)
	}
	put(result.RelayLogBytesReceived, recv, "Read_Master_Log_Pos difference (SHOW REPLICA STATUS: the primary's binary log the IO thread received, in bytes of the primary's binlog)")
	put(result.AppliedLogBytes, applied, "Exec_Master_Log_Pos difference (SHOW REPLICA STATUS: the primary's binary log the SQL thread applied)")
	if groupsOK && my.IsMariaDB(s) {
		put(result.AppliedTransactions, groups, "Slave_DDL_Groups + Slave_Non_Transactional_Groups + Slave_Transactional_Groups difference (SHOW ALL SLAVES STATUS: event groups the applier applied)")
		if len(why) == 0 {
			out = append(out, gtidRowCorrection(before, after, groups)...)
		}
	}
	return out, nil
}

// gtidRowCorrection takes the applier's own bookkeeping out of a MariaDB
// replica's row counts: for every transaction it applies it inserts a row
// into mysql.gtid_slave_pos and deletes old ones in batches, and
// Handler_write/Handler_delete count those too. The rows deleted are the
// ones inserted less the table's growth.
func gtidRowCorrection(before, after *collectors.Snapshot, groups float64) []collectors.Counter {
	rb, okb := strconv.ParseFloat(before.Marks[markGtidRows], 64)
	ra, oka := strconv.ParseFloat(after.Marks[markGtidRows], 64)
	var out []collectors.Counter
	for _, m := range []struct {
		metric   *result.Info
		handler  string
		minus    float64
		ok       bool
		minusSrc string
	}{
		{result.RowsInserted, "Handler_write", groups, true, "less the applied transactions' mysql.gtid_slave_pos rows (one each)"},
		{result.RowsDeleted, "Handler_delete", groups - (ra - rb), okb == nil && oka == nil, "less the mysql.gtid_slave_pos rows the applier deleted (applied transactions less the table's growth)"},
	} {
		hb, hok1 := counterValue(before, m.metric)
		ha, hok2 := counterValue(after, m.metric)
		if !m.ok || !hok1 || !hok2 || ha < hb {
			continue
		}
		v := ha - hb - m.minus
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", m.metric), Value: max(v, 0), Exactness: result.Derived, Interval: true,
			Source: "derived: " + m.handler + " difference (row handler calls, whole server) " + m.minusSrc}
		if v < 0 {
			c.Exactness, c.Note = result.Unavailable, "the applier's mysql.gtid_slave_pos rows exceed the handler count: another engine's gtid_slave_pos table (gtid_pos_auto_engines) or a reset"
		}
		out = append(out, c)
	}
	return out
}

// counterValue is the reading of a database-level counter in a snapshot.
func counterValue(snap *collectors.Snapshot, m *result.Info) (float64, bool) {
	k := collectors.NewKey(collectors.DB, "", m)
	for _, c := range snap.Counters {
		if c.Key == k && strings.HasPrefix(c.Source, "Handler_") {
			return c.Value, true
		}
	}
	return 0, false
}
