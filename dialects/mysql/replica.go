package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// CapReplica: the server replicates from a primary (SHOW ALL SLAVES STATUS /
// SHOW REPLICA STATUS has a row). What a window shows there is what its
// appliers received and applied; a built-in workload run on it would write
// rows its primary does not have.
const CapReplica = "replica"

// PropReplicaOf names the primary (host:port, and the connection name of a
// multi-source replica) for reports and doctor.
const PropReplicaOf = "replica_of"

// ReplicaRow is one replication connection's status, by column name: the
// columns' order differs by version and MySQL 8.0.22 renamed Master to
// Source, so a reader asks for either name.
type ReplicaRow map[string]string

// Get is the first of the names the row has ("" when none).
func (r ReplicaRow) Get(names ...string) string {
	for _, n := range names {
		if v, ok := r[n]; ok {
			return v
		}
	}
	return ""
}

// Column name pairs, MariaDB/MySQL < 8.0.22 first.
var (
	ColMasterFile      = []string{"Master_Log_File", "Source_Log_File"}
	ColReadPos         = []string{"Read_Master_Log_Pos", "Read_Source_Log_Pos"}
	ColRelayMasterFile = []string{"Relay_Master_Log_File", "Relay_Source_Log_File"}
	ColExecPos         = []string{"Exec_Master_Log_Pos", "Exec_Source_Log_Pos"}
	ColBehind          = []string{"Seconds_Behind_Master", "Seconds_Behind_Source"}
	ColIORunning       = []string{"Slave_IO_Running", "Replica_IO_Running"}
	ColSQLRunning      = []string{"Slave_SQL_Running", "Replica_SQL_Running"}
	ColHost            = []string{"Master_Host", "Source_Host"}
	ColPort            = []string{"Master_Port", "Source_Port"}
)

// ReadShow reads a SHOW statement's rows as column name -> text (NULL: "").
func ReadShow(ctx context.Context, q dialects.Querier, stmt string) ([]ReplicaRow, error) {
	rows, err := q.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []ReplicaRow
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := ReplicaRow{}
		for i, c := range cols {
			r[c] = vals[i].String
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// probeReplica records whether the server replicates from a primary.
func probeReplica(ctx context.Context, q dialects.Querier, s *dialects.Server) {
	stmt, err := queries.Get(Name, "replica_status", s.VersionNum)
	if err != nil {
		s.Deny(CapReplica, dialects.Reason{Kind: dialects.Unreadable, Text: err.Error()})
		return
	}
	rows, err := ReadShow(ctx, q, stmt)
	if pe := AsPrivilegeError(err, *s, "REPLICA MONITOR", "GRANT REPLICA MONITOR ON *.* TO "+s.Prop(PropHostUser)); pe != nil {
		s.Deny(CapReplica, dialects.Reason{Kind: dialects.Privilege, Text: "whether the server is a replica cannot be read: SHOW REPLICA STATUS needs REPLICA MONITOR (MariaDB 10.5.9+; REPLICATION CLIENT on MySQL)", Fix: pe.Grant})
		return
	} else if err != nil {
		s.Deny(CapReplica, dialects.Reason{Kind: dialects.Unreadable, Text: "SHOW REPLICA STATUS: " + err.Error()})
		return
	}
	if len(rows) == 0 {
		// Not set at all: a server that replicates from nobody lacks
		// nothing, and doctor lists every capability set to false.
		return
	}
	var of []string
	for _, r := range rows {
		p := r.Get(ColHost...) + ":" + r.Get(ColPort...)
		if c := r.Get("Connection_name", "Channel_Name"); c != "" {
			p = c + "=" + p
		}
		of = append(of, p)
	}
	s.Set(CapReplica, true, "")
	s.SetProp(PropReplicaOf, strings.Join(of, ", "))
}

// ReplicaBound is how long a window on a replica waits, at its start and
// after the workload, for the appliers to apply what they received.
var ReplicaBound = 30 * time.Second

// awaitReplica waits until every connection's SQL thread has applied all
// its IO thread received and the received position has held for three
// readings: the primary may still be sending the workload's tail. It says
// what was still behind at the bound.
func awaitReplica(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	stmt, err := queries.Get(Name, "replica_catchup", s.VersionNum)
	if err != nil {
		return []string{err.Error()}
	}
	deadline := time.Now().Add(ReplicaBound)
	last, still := "", 0
	var behind []string
	for time.Now().Before(deadline) {
		rows, err := ReadShow(ctx, db, stmt)
		if err != nil {
			return []string{"could not read the replica's positions to wait for it to catch up: " + err.Error()}
		}
		behind = behind[:0]
		var recv []string
		for _, r := range rows {
			read := r.Get(ColMasterFile...) + ":" + r.Get(ColReadPos...)
			exec := r.Get(ColRelayMasterFile...) + ":" + r.Get(ColExecPos...)
			recv = append(recv, read)
			if r.Get(ColSQLRunning...) != "Yes" {
				// A stopped applier never catches up: say so once, no wait.
				return []string{fmt.Sprintf("the replica's SQL thread is not running (%s): nothing it received is applied", r.Get(ColSQLRunning...))}
			}
			if read != exec {
				behind = append(behind, fmt.Sprintf("received up to %s, applied up to %s", read, exec))
			}
		}
		now := strings.Join(recv, " ")
		if len(behind) == 0 && now == last {
			if still++; still >= 3 {
				return nil
			}
		} else {
			still = 0
		}
		last = now
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
	if len(behind) == 0 {
		return []string{fmt.Sprintf("the replica was still receiving %s after the workload: the figures may miss the tail", ReplicaBound)}
	}
	return []string{fmt.Sprintf("the replica had not caught up %s after the workload (%s): the applied figures miss the tail", ReplicaBound, strings.Join(behind, "; "))}
}
