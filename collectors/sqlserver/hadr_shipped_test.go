package sqlserver

import (
	"regexp"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var (
	typedPerfCols = []string{"object_name", "counter_name", "instance_name", "cntr_value", "cntr_type"}
	replicaCols   = []string{"replica_server_name", "replica_id", "availability_mode_desc"}
)

// bulk is PERF_COUNTER_BULK_COUNT as cntr_type (int) arrives: int64.
const bulk = int64(272696576)

// typedPerfRows are rows as sys.dm_os_performance_counters sends them: the
// names nchar(128) blank-padded, cntr_value bigint, cntr_type int.
func typedPerfRows(rows ...[5]any) *sqlmock.Rows {
	r := sqlmock.NewRows(typedPerfCols)
	for _, x := range rows {
		r.AddRow(nchar128(x[0].(string)), nchar128(x[1].(string)), nchar128(x[2].(string)), x[3], x[4])
	}
	return r
}

func primary() dialects.Server {
	s := server(ms.Version2022 + 4135)
	s.Set(ms.CapAGPrimary, true, "")
	s.Set(ms.CapAGSecondary, false, "")
	s.Set(ms.CapViewAnyDefinition, true, "")
	return s
}

func secondary() dialects.Server {
	s := server(ms.Version2022 + 4135)
	s.Deny(ms.CapAGPrimary, dialects.Reason{Kind: dialects.Role, Text: "a secondary: it ships no log"})
	s.Set(ms.CapAGSecondary, true, "")
	s.Deny(ms.CapRowCounters, dialects.Reason{Kind: dialects.Role, Text: "the database is a readable secondary copy (redo applies the primary's log here; no statement writes to it)"})
	return s
}

// markPrimary takes the marks of one snapshot on a primary with secondaries
// SQL2 (synchronous), SQL3 (asynchronous), SQL4 when join, and one whose
// sys.availability_replicas row this login cannot see (NULL name and mode).
func markPrimary(t *testing.T, s dialects.Server, sql2, sql3, mirrored, delay int64, join bool) *collectors.Snapshot {
	t.Helper()
	db, mock := mocksql.New(t)
	perf := [][5]any{
		{"SQLServer:Availability Replica", "Bytes Sent to Replica/sec", "ag1:SQL2", sql2, bulk},
		{"SQLServer:Availability Replica", "Bytes Sent to Replica/sec", "ag1:SQL3", sql3, bulk},
		{"SQLServer:Availability Replica", "Bytes Sent to Replica/sec", "_Total", sql2 + sql3, bulk},
		{"SQLServer:Database Replica", "Mirrored Write Transactions/sec", "kc", mirrored, bulk},
		{"SQLServer:Database Replica", "Transaction Delay", "kc", delay, bulk},
	}
	reps := sqlmock.NewRows(replicaCols).
		AddRow("SQL2", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C21", "SYNCHRONOUS_COMMIT").
		AddRow("SQL3", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C22", "ASYNCHRONOUS_COMMIT").
		AddRow(nil, "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C23", nil)
	if join {
		perf = append(perf, [5]any{"SQLServer:Availability Replica", "Bytes Sent to Replica/sec", "ag1:SQL4", int64(7), bulk})
		reps.AddRow("SQL4", "6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C24", "ASYNCHRONOUS_COMMIT")
	}
	mock.ExpectQuery(text(t, "hadr_perf_counters", s)).WillReturnRows(typedPerfRows(perf...))
	mock.ExpectQuery(text(t, "hadr_replicas", s)).WillReturnRows(reps)
	marks, err := SysDmHadrDatabaseReplicaStates{}.Marks(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	return &collectors.Snapshot{Server: s, Marks: marks}
}

func value(t *testing.T, d *collectors.Delta, name string) result.Metric {
	t.Helper()
	m, ok := d.Values[collectors.Key{Level: collectors.DB, Metric: name}]
	if !ok {
		t.Fatalf("no %s in %v", name, d.Values)
	}
	return m
}

// TestShippedOnAPrimary: each secondary's bytes sent is the difference of
// its Bytes Sent to Replica/sec counter; a secondary that joined inside the
// window, or whose counter row cannot be named, is unavailable with why,
// never 0.
func TestShippedOnAPrimary(t *testing.T) {
	s := primary()
	before := markPrimary(t, s, 1_000_000, 500, 100, 2_000, false)
	after := markPrimary(t, s, 1_800_000, 900, 1_600, 9_000, true)
	d, err := collectors.Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if ran := NewSet().RunMarksOnly(ctx(), d); !ran["hadr_shipped"] || len(d.Missing) != 0 {
		t.Fatalf("ran %v, missing %+v", ran, d.Missing)
	}
	if m := value(t, d, "replica.SQL2.bytes_sent"); m.V() != 800_000 || m.Exactness != result.Exact || !strings.Contains(m.Note, "every database of the availability group") {
		t.Errorf("SQL2 = %+v", m)
	}
	if m := value(t, d, "replica.SQL3.bytes_sent"); m.V() != 400 {
		t.Errorf("SQL3 = %+v", m)
	}
	if m := value(t, d, "replica.SQL4.bytes_sent"); m.OK() || !strings.Contains(m.Note, "not read at the window's start") {
		t.Errorf("a secondary that joined in the window = %+v", m)
	}
	hidden := value(t, d, "replica.6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C23.bytes_sent")
	if hidden.OK() || !strings.Contains(hidden.Note, "VIEW ANY DEFINITION") || !strings.Contains(hidden.Note, "ag1:SQL2") {
		t.Errorf("an unnamed secondary = %+v", hidden)
	}
	if value(t, d, "replica.SQL2.synchronous").V() != 1 || value(t, d, "replica.SQL3.synchronous").V() != 0 {
		t.Error("synchronous is availability_mode_desc = SYNCHRONOUS_COMMIT")
	}
	if _, ok := d.Values[collectors.Key{Level: collectors.DB, Metric: "replica.6B1A3C2E-0D4F-4A5B-9C8D-7E6F5A4B3C23.synchronous"}]; ok {
		t.Error("an unknown availability mode is no 0")
	}
	if m := value(t, d, "replicas"); m.V() != 4 || m.Exactness != result.Exact {
		t.Errorf("replicas = %+v", m)
	}
	if m := value(t, d, "mirrored_write_transactions"); m.V() != 1_500 || m.Exactness != result.Exact {
		t.Errorf("mirrored_write_transactions = %+v", m)
	}
	if m := value(t, d, "mirrored_commit_delay_ms"); m.V() != 7_000 {
		t.Errorf("mirrored_commit_delay_ms = %+v", m)
	}
	for name := range d.Values {
		if strings.HasSuffix(name.Metric, ".log_bytes_sent") {
			t.Errorf("%s: bytes sent to a replica are its whole stream, no log bytes of this database", name.Metric)
		}
	}
}

// TestShippedCountersThatCannotBeDiffed: only a running total of the window
// is diffed; a lower reading is a reset.
func TestShippedCountersThatCannotBeDiffed(t *testing.T) {
	for _, c := range []struct{ before, after, want string }{
		{"100 272696576", "90 272696576", "counter reset"},
		{"100 65792", "120 65792", "cntr_type 65792"},
		{"", "120 272696576", "not read at the window's start"},
		{"- - SYNCHRONOUS_COMMIT", "- - SYNCHRONOUS_COMMIT", "no such counter at the window's end"},
	} {
		if _, why := windowDiff(c.before, c.after); !strings.Contains(why, c.want) {
			t.Errorf("%q -> %q: %q, want %q", c.before, c.after, why, c.want)
		}
	}
	if v, why := windowDiff("100 272696576 ASYNCHRONOUS_COMMIT", "150 272696576 ASYNCHRONOUS_COMMIT"); v != 50 || why != "" {
		t.Errorf("diff = %v %q", v, why)
	}
}

// TestShippedOnASecondary: the log received and redone are the Database
// Replica counters of this database, exact.
func TestShippedOnASecondary(t *testing.T) {
	s := secondary()
	mark := func(received, redone int64) *collectors.Snapshot {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "hadr_perf_counters", s)).WillReturnRows(typedPerfRows(
			[5]any{"SQLServer:Database Replica", "Log Bytes Received/sec", "kc", received, bulk},
			[5]any{"SQLServer:Database Replica", "Redone Bytes/sec", "kc", redone, bulk}))
		marks, err := SysDmHadrDatabaseReplicaStates{}.Marks(ctx(), db, s)
		if err != nil {
			t.Fatal(err)
		}
		return &collectors.Snapshot{Server: s, Marks: marks}
	}
	cs, err := HadrShipped{}.CollectInterval(ctx(), nil, s, mark(10_000, 9_000), mark(60_000, 58_000))
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "received_log_bytes"); c.Value != 50_000 || c.Exactness != result.Exact {
		t.Errorf("received = %+v", c)
	}
	if c := find(t, cs, collectors.DB, "", "replayed_log_bytes"); c.Value != 49_000 || c.Exactness != result.Exact {
		t.Errorf("redone = %+v", c)
	}
}

func TestShippedSupports(t *testing.T) {
	if err := (HadrShipped{}).Supports(server(ms.Version2019)); err != nil {
		t.Errorf("a database without copies: %v", err)
	}
	db, _ := mocksql.New(t) // a database without copies reads nothing
	if m, err := (SysDmHadrDatabaseReplicaStates{}).Marks(ctx(), db, server(ms.Version2019)); m != nil || err != nil {
		t.Errorf("marks = %v, %v", m, err)
	}
	a := azure()
	a.Deny(ms.CapAGPrimary, dialects.Reason{Kind: dialects.Version, Text: "Azure SQL Database shows neither its replicas nor their counters"})
	err := HadrShipped{}.Supports(a)
	wantUnsupported(t, err)
	if r := dialects.ReasonOf(err); r.Kind != dialects.Version || len(dialects.Lacking(err)) == 0 {
		t.Errorf("azure: %+v lacks %v", r, dialects.Lacking(err))
	}
	p := primary()
	p.Set(ms.CapViewServerState, false, "no")
	wantPrivilege(t, HadrShipped{}.Supports(p), "VIEW SERVER PERFORMANCE STATE", "GRANT VIEW SERVER PERFORMANCE STATE TO [wa_login]")
	p = primary()
	p.Deny(ms.CapViewAnyDefinition, dialects.Reason{Kind: dialects.Privilege, Text: "missing VIEW ANY DEFINITION", Fix: "USE master; GRANT VIEW ANY DEFINITION TO [wa_login]"})
	wantPrivilege(t, HadrShipped{}.Supports(p), "VIEW ANY DEFINITION (sys.availability_replicas)", "GRANT VIEW ANY DEFINITION TO [wa_login]")
}

// TestShippedRefusedReadStaysTyped: a permission error at a snapshot
// reaches the report as the GRANT, not as its words.
func TestShippedRefusedReadStaysTyped(t *testing.T) {
	s := primary()
	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "hadr_perf_counters", s)).WillReturnError(permissionDenied300)
	marks, err := SysDmHadrDatabaseReplicaStates{}.Marks(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	snap := &collectors.Snapshot{Server: s, Marks: marks}
	_, err = HadrShipped{}.CollectInterval(ctx(), nil, s, snap, snap)
	wantPrivilege(t, err, "VIEW SERVER PERFORMANCE STATE", "GRANT VIEW SERVER PERFORMANCE STATE TO [wa_login]")
}

// TestHadrCountersWhereMatchesPaddedNames: the object_name LIKEs meet
// RTRIM, or no nchar(128) row of a real server matches.
func TestHadrCountersWhereMatchesPaddedNames(t *testing.T) {
	q := text(t, "hadr_perf_counters", primary())
	preds := regexp.MustCompile(`(RTRIM\((\w+)\)|(\w+))\s+LIKE\s+N'([^']*)'`).FindAllStringSubmatch(q, -1)
	if len(preds) != 2 {
		t.Fatalf("predicates %q", preds)
	}
	for _, p := range preds {
		if p[2] != "object_name" {
			t.Errorf("%s: object_name is nchar(128), its LIKE needs RTRIM", p[0])
		}
		want := "SQLServer:Database Replica"
		if strings.Contains(p[4], "Availability") {
			want = "SQLServer:Availability Replica"
		}
		if !unicodeLike(strings.TrimRight(nchar128(want), " "), p[4]) {
			t.Errorf("%s matches no %q", p[0], want)
		}
	}
}
