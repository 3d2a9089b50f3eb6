package mysql

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// ReplicaHosts marks, on a primary with binary logging on, the replicas
// registered with it (SHOW SLAVE HOSTS: one per connected replica's binlog
// dump). MariaDB and MySQL keep no per-replica position on the primary, so
// DeriveBinlogShipped derives each replica's bytes from the window's binlog
// bytes: a replica's dump thread sends it the whole binary log.
type ReplicaHosts struct{}

const markReplicaHost = "replica_host:"

func (ReplicaHosts) Name() string { return "replica_hosts" }

// Supports is nil with binary logging off too, where nothing is shipped
// and nothing is read.
func (ReplicaHosts) Supports(s dialects.Server) error { return nil }

// Marks never fails the snapshot; a login that may not list the replicas
// leaves a mark saying why.
func (ReplicaHosts) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(my.CapBinlog) {
		return nil, nil
	}
	out := map[string]string{}
	stmt, err := queries.Get(my.Name, "replica_hosts", s.VersionNum)
	var rows []my.ReplicaRow
	if err == nil {
		rows, err = my.ReadShow(ctx, qr, stmt)
	}
	if pe := my.AsPrivilegeError(err, s, "REPLICATION MASTER ADMIN", "GRANT REPLICATION MASTER ADMIN ON *.* TO "+s.Prop(my.PropHostUser)); pe != nil {
		out[markReplicaHost] = "error: SHOW SLAVE HOSTS needs REPLICATION MASTER ADMIN (MariaDB 10.5.2+; REPLICATION SLAVE on MySQL); fix: " + pe.Grant
		return out, nil
	} else if err != nil {
		out[markReplicaHost] = "error: " + err.Error()
		return out, nil
	}
	for _, r := range rows {
		out[markReplicaHost+replicaName(r)] = r.Get("Server_id", "Server_Id")
	}
	return out, nil
}

// replicaName is how the reports name a replica: its reported host and
// port (report_host; MariaDB 10.5.1+ fills in the connection's address),
// else its server_id.
func replicaName(r my.ReplicaRow) string {
	host, port := r.Get("Host"), r.Get("Port")
	if host == "" {
		return "server_id_" + r.Get("Server_id", "Server_Id")
	}
	if port != "" && port != "0" {
		return host + ":" + port
	}
	return host
}

func hostMarks(snap *collectors.Snapshot) (map[string]bool, string) {
	out := map[string]bool{}
	for k, v := range snap.Marks {
		name, ok := strings.CutPrefix(k, markReplicaHost)
		if !ok {
			continue
		}
		if name == "" {
			return nil, strings.TrimPrefix(v, "error: ")
		}
		out[name] = true
	}
	return out, ""
}

// DeriveBinlogShipped gives, on a primary, each replica connected through
// the window the binary log written in it (derived: what its dump thread
// sends), the number of replicas and their sum.
func DeriveBinlogShipped(d *collectors.Delta) {
	if d.Before == nil || d.After == nil || !d.Server.Has(my.CapBinlog) {
		return
	}
	a, errA := hostMarks(d.After)
	b, _ := hostMarks(d.Before)
	if errA != "" {
		d.Missing = append(d.Missing, collectors.Missing{Collector: "replica_hosts", Reason: errA})
		return
	}
	if len(a) == 0 {
		return // no replica: no shipping figures to show on a lone server
	}
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	bin := d.Get(collectors.NewKey(collectors.DB, "", result.BinlogBytes))
	e := result.Weaker(result.Derived, bin.Exactness)
	src := "derived: binlog_bytes of the window (each replica's binlog dump thread sends it the whole binary log; " +
		"the primary keeps no per-replica position)"
	var total float64
	totalOK := bin.OK()
	for _, n := range names {
		k := collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+n+".log_bytes_sent"))
		switch {
		case !b[n]:
			d.Values[k] = result.NA("SHOW SLAVE HOSTS", "the replica connected during the window: part of the window's binary log may have been sent before it registered")
			totalOK = false
		case !bin.OK():
			d.Values[k] = result.NA("binlog_bytes", "the window's binary log bytes are unavailable: "+bin.Note)
		default:
			d.Values[k] = result.New(bin.V(), e, src)
			total += bin.V()
		}
	}
	d.Values[collectors.NewKey(collectors.DB, "", result.Replicas)] = result.New(float64(len(names)), result.Exact, "SHOW SLAVE HOSTS: replicas registered at the window's end")
	if totalOK {
		d.Values[collectors.NewKey(collectors.DB, "", result.ReplicasLogBytesSent)] = result.New(total, e, "derived: binlog_bytes × "+strconv.Itoa(len(names))+" replica(s) (SHOW SLAVE HOSTS)")
	} else {
		d.Values[collectors.NewKey(collectors.DB, "", result.ReplicasLogBytesSent)] = result.NA("SHOW SLAVE HOSTS", "a replica's bytes are unavailable")
	}
}

// Semisync reads the primary's semi-synchronous replication counters: the
// commits a replica acknowledged, those that timed out waiting, and the
// waits' count and time. Server-wide, all sessions.
type Semisync struct{}

func (Semisync) Name() string { return "semisync" }

func (Semisync) Supports(s dialects.Server) error { return ReplicaHosts{}.Supports(s) }

func (Semisync) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if !s.Has(my.CapBinlog) {
		return nil, nil
	}
	st, err := GlobalStatus{}.readBlock(ctx, qr, s, "semisync_status")
	if err != nil {
		return nil, err
	}
	var out []collectors.Counter
	for _, m := range []struct {
		metric *result.Info
		suffix string
		scale  float64
		what   string
	}{
		{result.SemisyncAckedCommits, "yes_tx", 1, "commits a replica acknowledged"},
		{result.SemisyncUnackedCommits, "no_tx", 1, "commits that went on without an acknowledgement (rpl_semi_sync_master_timeout)"},
		{result.SemisyncWaits, "tx_waits", 1, "commit waits for an acknowledgement"},
		{result.SemisyncWaitMs, "tx_wait_time", 0.001, "their total time, microseconds shown as ms"},
	} {
		for _, side := range []string{"master", "source"} {
			name := "Rpl_semi_sync_" + side + "_" + m.suffix
			if v, ok := st[name]; ok {
				out = append(out, collectors.NewCounter(collectors.DB, "", m.metric, v*m.scale, result.Exact, name+" ("+m.what+", whole server)", ""))
				break
			}
		}
	}
	return out, nil
}
