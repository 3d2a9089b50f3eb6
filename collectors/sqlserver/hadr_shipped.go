package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/result"
)

// HadrShipped is what the window cost the database's copies, from the
// marks SysDmHadrDatabaseReplicaStates left: on a primary the bytes sent to
// each secondary, whether it commits synchronously, and the commits that
// waited for one; on a secondary the log it received and redid.
type HadrShipped struct{}

func (HadrShipped) Name() string { return "hadr_shipped" }

// MarksOnly: a diff of two snapshot files computes it without a connection.
func (HadrShipped) MarksOnly() {}

// shippedLacks are the figures a server without readable copies cannot give.
var shippedLacks = []string{result.Replicas.Name, result.MirroredWriteTransactions.Name, result.MirroredCommitDelayMs.Name, result.ReceivedLogBytes.Name, result.ReplayedLogBytes.Name}

// Supports is nil on a database with no copies, where it reads nothing
// (listing it missing on every standalone server would be noise), and an
// error where copies exist and cannot be read.
func (HadrShipped) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	switch {
	case s.Flavor == ms.FlavorAzureSQLDatabase:
		u := s.Unsupported(ms.CapAGPrimary)
		u.Lacks = shippedLacks
		return u
	case s.Has(ms.CapAGPrimary):
		if err := need(s, ms.CapViewServerState, ms.ServerScope); err != nil {
			return err
		}
		if ok, probed := s.Caps[ms.CapViewAnyDefinition]; probed && !ok {
			return &dialects.PrivilegeError{Privilege: "VIEW ANY DEFINITION (sys.availability_replicas)", Grant: s.Reason(ms.CapViewAnyDefinition).Fix}
		}
	case s.Has(ms.CapAGSecondary):
		return need(s, ms.CapInstanceDMVs, ms.InstanceScope)
	}
	return nil
}

func (HadrShipped) CollectInterval(_ context.Context, _ dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	if !(s.Has(ms.CapAGPrimary) || s.Has(ms.CapAGSecondary)) {
		return nil, nil
	}
	for _, snap := range []*collectors.Snapshot{before, after} {
		if e := snap.Marks[markAGError]; e != "" {
			if snap.Marks[markAGRefused] != "" {
				p, g := ms.Privilege(s, ms.ServerScope)
				return nil, &dialects.PrivilegeError{Privilege: p, Grant: g, Err: errors.New(e)}
			}
			return nil, fmt.Errorf("the copies' counters did not read: %s", e)
		}
	}
	if s.Has(ms.CapAGSecondary) {
		return []collectors.Counter{
			agCounter(before, after, "log_bytes_received", result.ReceivedLogBytes, "'Log Bytes Received/sec' difference (SQLServer:Database Replica, this database: the primary's log this secondary received)"),
			agCounter(before, after, "redone_bytes", result.ReplayedLogBytes, "'Redone Bytes/sec' difference (SQLServer:Database Replica, this database: the log this secondary redid)"),
		}, nil
	}
	out := []collectors.Counter{
		agCounter(before, after, "mirrored_write_transactions", result.MirroredWriteTransactions, "'Mirrored Write Transaction/sec' difference (SQLServer:Database Replica, this database: transactions that waited to commit until their log was sent to a synchronous secondary)"),
		agCounter(before, after, "transaction_delay", result.MirroredCommitDelayMs, "'Transaction Delay' difference (SQLServer:Database Replica, this database: milliseconds commits waited for the secondaries' acknowledgment)"),
	}
	names := replicaNames(after)
	for _, n := range names {
		out = append(out, bytesSent(before, after, n))
		if mode := strings.Fields(after.Marks[markAGReplica+n]); len(mode) == 3 && mode[2] != "-" {
			out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+n+".synchronous")),
				Value: boolValue(mode[2] == "SYNCHRONOUS_COMMIT"), Exactness: result.Exact, Interval: true,
				Source: "sys.availability_replicas.availability_mode_desc at the window's end (" + mode[2] + ")"})
		}
	}
	out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Replicas), Value: float64(len(names)), Exactness: result.Exact, Interval: true,
		Source: "sys.dm_hadr_database_replica_states: this database's secondaries at the window's end"})
	return out, nil
}

func replicaNames(snap *collectors.Snapshot) []string {
	var out []string
	for k := range snap.Marks {
		if n, ok := strings.CutPrefix(k, markAGReplica); ok && n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// markedValue is a mark's counter value and whether it is a running total
// the window may be diffed on; why says what it is instead.
func markedValue(mark string) (v float64, why string) {
	f := strings.Fields(mark)
	if len(f) < 2 || f[0] == "-" {
		return 0, "absent"
	}
	v, err1 := strconv.ParseFloat(f[0], 64)
	kind, err2 := strconv.ParseInt(f[1], 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return 0, "unreadable"
	case kind != cumulative:
		return 0, fmt.Sprintf("cntr_type %d, not the running total %d is", kind, cumulative)
	}
	return v, ""
}

// windowDiff is a counter's increase between two marks, or why there is none.
func windowDiff(before, after string) (float64, string) {
	a, whyA := markedValue(after)
	if whyA == "absent" {
		return 0, "the server showed no such counter at the window's end"
	}
	if whyA != "" {
		return 0, "its reading is " + whyA
	}
	b, whyB := markedValue(before)
	switch {
	case before == "":
		return 0, "it was not read at the window's start (the copy joined, or the database changed role, inside the window)"
	case whyB == "absent":
		return 0, "the server showed no such counter at the window's start"
	case whyB != "":
		return 0, "its reading at the start is " + whyB
	case a < b:
		return 0, fmt.Sprintf("counter reset: went down from %.0f to %.0f (a restart, or the copy reconnected)", b, a)
	}
	return a - b, ""
}

func agCounter(before, after *collectors.Snapshot, mark string, m *result.Info, source string) collectors.Counter {
	c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", m), Exactness: result.Exact, Source: perfCounters + " " + source, Interval: true}
	v, why := windowDiff(before.Marks[markAGCounter+mark], after.Marks[markAGCounter+mark])
	if why != "" {
		c.Exactness, c.Note = result.Unavailable, why
		return c
	}
	c.Value = v
	return c
}

func bytesSent(before, after *collectors.Snapshot, name string) collectors.Counter {
	c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+name+".bytes_sent")), Exactness: result.Exact, Interval: true,
		Source: perfCounters + " 'Bytes Sent to Replica/sec' difference (SQLServer:Availability Replica)",
		Note:   "the replica's whole stream: every database of the availability group and the group's own messages; uncompressed to a synchronous-commit replica, before compression to an asynchronous one"}
	v, why := windowDiff(before.Marks[markAGReplica+name], after.Marks[markAGReplica+name])
	if why == "the server showed no such counter at the window's end" {
		why = "no Availability Replica row of " + perfCounters + " is this replica's (instance names seen: " + orDash(after.Marks[markAGInstances]) +
			"); without VIEW ANY DEFINITION the replica is named by its replica_id and matches none"
	}
	if why != "" {
		c.Exactness, c.Note = result.Unavailable, why
		return c
	}
	c.Value = v
	return c
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
