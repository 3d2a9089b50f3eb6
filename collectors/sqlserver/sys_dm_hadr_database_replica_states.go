package sqlserver

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
)

// SysDmHadrDatabaseReplicaStates marks, in each snapshot, the copies of
// this database (on a primary: its secondaries, named by
// sys.availability_replicas) with the cumulative counters of
// sys.dm_os_performance_counters that count what they were sent, and on
// either side the Database Replica counters of this database. HadrShipped
// turns two snapshots' marks into the window's figures. Marks, not
// counters: a secondary that joined inside the window has no start, and its
// counter then is no count from zero; the interval collector says so
// instead of the diff calling it a new object.
type SysDmHadrDatabaseReplicaStates struct{}

const (
	// markAGReplica prefixes one secondary's mark: "<bytes sent> <cntr_type> <availability mode>".
	markAGReplica = "ag_replica:"
	// markAGCounter prefixes one Database Replica counter of this database: "<value> <cntr_type>".
	markAGCounter = "ag_counter:"
	// markAGInstances lists the Availability Replica instances the server
	// showed, for the note when none is a secondary's.
	markAGInstances = "ag_instances"
	markAGError     = "ag_error"
	// markAGRefused is set beside markAGError when the server refused the
	// read for a missing permission, so the error stays a typed one.
	markAGRefused = "ag_error_privilege"
	// cumulative is PERF_COUNTER_BULK_COUNT: the "/sec" counters whose
	// cntr_value is a running total.
	cumulative = 272696576
)

// The Database Replica counters read, by the key their mark carries.
var agCounters = map[string]string{
	"Mirrored Write Transactions/sec": "mirrored_write_transactions",
	"Mirrored Write Transaction/sec":  "mirrored_write_transactions",
	"Transaction Delay":               "transaction_delay",
	"Log Bytes Received/sec":          "log_bytes_received",
	"Redone Bytes/sec":                "redone_bytes",
}

func (SysDmHadrDatabaseReplicaStates) Name() string { return "sys_dm_hadr_database_replica_states" }

// Supports is always nil: HadrShipped reports what is missing, once.
func (SysDmHadrDatabaseReplicaStates) Supports(dialects.Server) error { return nil }

// Marks never fails the snapshot (a failing Marker aborts it): a read error
// is recorded for HadrShipped to report.
func (SysDmHadrDatabaseReplicaStates) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if (HadrShipped{}).Supports(s) != nil || !(s.Has(ms.CapAGPrimary) || s.Has(ms.CapAGSecondary)) {
		return nil, nil
	}
	out := map[string]string{}
	fail := func(err error) (map[string]string, error) {
		m := map[string]string{markAGError: err.Error()}
		if ms.IsPermissionError(err) {
			m[markAGRefused] = "1"
		}
		return m, nil
	}
	text, err := collectors.SQL(ms.Name, "hadr_perf_counters", s)
	if err != nil {
		return fail(err)
	}
	rows, err := readTypedPerfRows(ctx, qr, text)
	if err != nil {
		return fail(err)
	}
	var sent []typedPerfRow
	for _, r := range rows {
		if strings.HasSuffix(r.object, ":Availability Replica") {
			sent = append(sent, r)
			continue
		}
		if k, ok := agCounters[r.name]; ok && strings.HasSuffix(r.object, ":Database Replica") {
			out[markAGCounter+k] = strconv.FormatInt(r.value, 10) + " " + strconv.FormatInt(r.kind, 10)
		}
	}
	if !s.Has(ms.CapAGPrimary) {
		return out, nil
	}
	replicas, err := readReplicas(ctx, qr, s)
	if err != nil {
		return fail(err)
	}
	var seen []string
	for _, r := range sent {
		seen = append(seen, r.instance)
	}
	sort.Strings(seen)
	out[markAGInstances] = strings.Join(seen, ", ")
	for _, r := range replicas {
		bytes, kind := "-", "-"
		if row, ok := replicaRow(sent, r.name); ok {
			bytes, kind = strconv.FormatInt(row.value, 10), strconv.FormatInt(row.kind, 10)
		}
		out[markAGReplica+r.name] = bytes + " " + kind + " " + orDash(r.mode)
	}
	return out, nil
}

type replica struct{ name, mode string }

// readReplicas lists this database's secondaries, each named by its server
// (the replica_id where sys.availability_replicas shows no row: without
// VIEW ANY DEFINITION, so its counters cannot be matched, and the figure says so).
func readReplicas(ctx context.Context, qr dialects.Querier, s dialects.Server) ([]replica, error) {
	rows, err := queries.Query(ctx, qr, ms.Name, "hadr_replicas", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []replica
	for rows.Next() {
		var name, mode sql.NullString
		var id string
		if err := rows.Scan(&name, &id, &mode); err != nil {
			return nil, err
		}
		r := replica{name: name.String, mode: mode.String}
		if !name.Valid {
			r.name = id
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// typedPerfRow is a sys.dm_os_performance_counters row with its cntr_type,
// the name columns trimmed of their nchar(128) padding.
type typedPerfRow struct {
	object, name, instance string
	value, kind            int64
}

func readTypedPerfRows(ctx context.Context, qr dialects.Querier, text string) ([]typedPerfRow, error) {
	rows, err := qr.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []typedPerfRow
	for rows.Next() {
		var r typedPerfRow
		if err := rows.Scan(&r.object, &r.name, &r.instance, &r.value, &r.kind); err != nil {
			return nil, err
		}
		r.object, r.name, r.instance = trimBlanks(r.object), trimBlanks(r.name), trimBlanks(r.instance)
		out = append(out, r)
	}
	return out, rows.Err()
}

// replicaRow is the Availability Replica row of a secondary. Its instance
// name is undocumented: the replica's own name, or the group's name before
// it ("ag1:SQL2"), both case-insensitive as server names are; never the
// _Total row. An nchar(128) instance may have cut a longer name short, and
// then nothing matches.
func replicaRow(rows []typedPerfRow, name string) (typedPerfRow, bool) {
	for _, r := range rows {
		in := strings.ToLower(r.instance)
		n := strings.ToLower(name)
		if in == n || strings.HasSuffix(in, ":"+n) {
			return r, true
		}
	}
	return typedPerfRow{}, false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
