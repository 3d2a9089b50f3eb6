package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

func TestClassifyProcess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		state    string
		wait     bool
		lockType string
		want     string
	}{
		{"Updating", true, "RECORD", "Lock.row_lock"},
		{"Updating", true, "TABLE", "Lock.table_lock"},
		{"Updating", true, "", "Lock.innodb_lock"}, // MySQL with performance_schema off: the type is unknown
		{"Waiting for table metadata lock", false, "", "Lock.metadata_lock"},
		{"Waiting for table level lock", false, "", "Lock.table_level_lock"},
		{"Waiting for commit lock", false, "", "Lock.commit_lock"},
		{"Commit", false, "", "State.commit"},
		{"Writing to net", false, "", "State.writing_to_net"},
		{"Waiting for work from SQL thread", false, "", "State.waiting_for_work_from_sql_thread"},
		{"", false, "", "State.none"},
	} {
		class, event := classifyProcess(c.state, c.wait, c.lockType)
		if got := class + "." + event; got != c.want {
			t.Errorf("%q wait=%v %q: %s, want %s", c.state, c.wait, c.lockType, got, c.want)
		}
	}
}

func TestSplitBufferPageTable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"`writeamp_rt_1`.`offline_user_session`": {"writeamp_rt_1", "offline_user_session"},
		"`a``b`.`c`":                             {"a`b", "c"},
		"`db`.`t` /* Partition `p0` */":          {"db", "t"},
	} {
		s, tb, ok := splitBufferPageTable(in)
		if !ok || s != want[0] || tb != want[1] {
			t.Errorf("%s: %q %q %v", in, s, tb, ok)
		}
	}
	for _, in := range []string{"`SYS_TABLES`", "SYS_FOREIGN", "`db`.`t", ""} {
		if _, _, ok := splitBufferPageTable(in); ok {
			t.Errorf("%q is not a user table", in)
		}
	}
}

// The index pages whose LSN lies in the window count for their index, a
// partitioned index's pages add up, and an index with none gets 0: a
// measured zero, not a missing number.
func TestInnodbBufferPageCountsPerIndex(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101119, my.CapInnodbMetrics, my.CapLSNCurrent)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "innodb_buffer_page_touched", s.VersionNum)).WithArgs(uint64(1000), uint64(5000)).
		WillReturnRows(sqlmock.NewRows([]string{"TABLE_NAME", "INDEX_NAME", "COUNT(*)"}).
			AddRow("`rt`.`offline_user_session`", "PRIMARY", 12).
			AddRow("`rt`.`offline_user_session`", "idx_user_session_expiration_last_refresh", 3).
			AddRow("`rt`.`p` /* Partition `p0` */", "ip", 2).
			AddRow("`rt`.`p` /* Partition `p1` */", "ip", 5).
			AddRow("`SYS_TABLES`", "CLUST_IND", 1))
	objs := []collectors.Object{
		{Level: collectors.Index, Schema: "rt", Name: "offline_user_session.PRIMARY", Table: "offline_user_session", Info: map[string]string{"index_name": "PRIMARY", "clustered": "true"}},
		{Level: collectors.Index, Schema: "rt", Name: "idx_user_session_expiration_last_refresh", Table: "offline_user_session", Info: map[string]string{"index_name": "idx_user_session_expiration_last_refresh"}},
		{Level: collectors.Index, Schema: "rt", Name: "idx_offline_uss_by_user", Table: "offline_user_session", Info: map[string]string{"index_name": "idx_offline_uss_by_user"}},
		{Level: collectors.Index, Schema: "rt", Name: "ip", Table: "p", Info: map[string]string{"index_name": "ip"}},
	}
	before := &collectors.Snapshot{Marks: map[string]string{MarkLSN: "1000"}}
	after := &collectors.Snapshot{Marks: map[string]string{MarkLSN: "5000"}, Objects: objs}
	cs, err := InnodbBufferPage{}.CollectInterval(context.Background(), db, s, before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	for k, want := range map[string]float64{
		"index:rt.offline_user_session.PRIMARY:pages_touched":             12,
		"table:rt.offline_user_session:pages_touched":                     12,
		"index:rt.idx_user_session_expiration_last_refresh:pages_touched": 3,
		"index:rt.idx_offline_uss_by_user:pages_touched":                  0,
		"index:rt.ip:pages_touched":                                       7,
	} {
		c, ok := got[k]
		if !ok || c.Value != want || c.Exactness != "approx" || !c.Interval {
			t.Errorf("%s = %+v, want %v approx", k, c, want)
		}
	}
	if len(got) != 5 {
		t.Errorf("one figure per index and the clustered table: %v", got)
	}
	if err := (InnodbBufferPage{}).Supports(server(1101119, my.CapLSNCurrent)); !errors.As(err, new(*dialects.PrivilegeError)) {
		t.Errorf("without PROCESS: %v", err)
	}
}

var psCols = []string{"EVENT_NAME", "COUNT_STAR", "SUM_TIMER_WAIT", "enabled", "timed"}

// COUNT_STAR and SUM_TIMER_WAIT (picoseconds) become waits.<instrument> and
// _ms; a disabled instrument is left out and named; an untimed one has no
// time.
func TestEventsWaitsSummary(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101119)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "performance_schema_on", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{"@@performance_schema"}).AddRow(1))
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_instrumentation", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{"on"}).AddRow(1))
	m.ExpectQuery(mocksql.SQL(t, my.Name, "events_waits_summary_global_by_event_name", s.VersionNum)).WillReturnRows(sqlmock.NewRows(psCols).
		AddRow("wait/synch/sxlock/innodb/index_tree_rw_lock", 6786, 134354328, 1, 1).
		AddRow("wait/synch/mutex/innodb/buf_pool_mutex", 900, 0, 1, 0).
		AddRow("wait/lock/metadata/sql/mdl", 3, 0, 0, 0))
	cs, err := EventsWaitsSummaryGlobalByEventName{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	if c := got["database:waits.wait/synch/sxlock/innodb/index_tree_rw_lock"]; c.Value != 6786 || c.Exactness != "exact" || !strings.Contains(c.Note, "1 of 3 instruments are off") {
		t.Errorf("index latch %+v", c)
	}
	if c := got["database:waits.wait/synch/sxlock/innodb/index_tree_rw_lock_ms"]; c.Value < 0.1343 || c.Value > 0.1344 {
		t.Errorf("picoseconds to ms: %+v", c)
	}
	if _, ok := got["database:waits.wait/synch/mutex/innodb/buf_pool_mutex_ms"]; ok {
		t.Error("an untimed instrument has no time")
	}
	if _, ok := got["database:waits.wait/lock/metadata/sql/mdl"]; ok {
		t.Error("a disabled instrument's total does not move: no figure")
	}
}

func TestEventsWaitsSummaryOffSaysHowToTurnItOn(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101119)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "performance_schema_on", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{"@@performance_schema"}).AddRow(0))
	_, err := EventsWaitsSummaryGlobalByEventName{}.Collect(context.Background(), db, s, collectors.Scope{})
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "performance_schema = ON") || !strings.Contains(err.Error(), "restart") {
		t.Errorf("performance_schema off: %v", err)
	}
	db, m = mocksql.New(t)
	s = server(80036)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "performance_schema_on", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{"@@performance_schema"}).AddRow(1))
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_instrumentation", s.VersionNum)).WillReturnRows(sqlmock.NewRows([]string{"on"}).AddRow(0))
	_, err = EventsWaitsSummaryGlobalByEventName{}.Collect(context.Background(), db, s, collectors.Scope{})
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'global_instrumentation'") {
		t.Errorf("consumer off: %v", err)
	}
}

var cbCols = []string{"Variable_name", "Value"}

// MariaDB 11.0 has no change buffer: nothing to count, and the reason says
// the claim does not apply. Without PROCESS, MariaDB's status variables give
// the merges.
func TestChangeBuffer(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1110402)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "innodb_change_buffering", s.VersionNum)).WillReturnRows(sqlmock.NewRows(cbCols))
	_, err := InnodbChangeBuffer{}.Collect(context.Background(), db, s, collectors.Scope{})
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "no InnoDB change buffer") {
		t.Errorf("11.0: %v", err)
	}

	db, m = mocksql.New(t)
	s = server(1101119)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "innodb_change_buffering", s.VersionNum)).WillReturnRows(sqlmock.NewRows(cbCols).AddRow("innodb_change_buffering", "none"))
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status_change_buffer", s.VersionNum)).WillReturnRows(statusRows(
		"Innodb_ibuf_merged_delete_marks", "0", "Innodb_ibuf_merged_deletes", "0", "Innodb_ibuf_merged_inserts", "7", "Innodb_ibuf_merges", "2"))
	cs, err := InnodbChangeBuffer{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	if c := got["database:ibuf_merged_inserts"]; c.Value != 7 || !strings.Contains(c.Note, "innodb_change_buffering = none") || !strings.HasPrefix(c.Source, "Innodb_ibuf_merged_inserts") {
		t.Errorf("merged inserts %+v", c)
	}
	if _, ok := got["database:ibuf_size_pages"]; ok {
		t.Error("Innodb_ibuf_size is garbage on MariaDB 10.11: not read")
	}

	d := &collectors.Delta{After: &collectors.Snapshot{Marks: map[string]string{MarkChangeBuffering: "none"}}}
	DeriveChangeBufferNote(d)
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Text, "defers no secondary-index change") {
		t.Errorf("the note: %v", d.Warnings)
	}
	d = &collectors.Delta{After: &collectors.Snapshot{Marks: map[string]string{MarkChangeBuffering: "all"}}}
	if DeriveChangeBufferNote(d); len(d.Warnings) != 0 {
		t.Errorf("buffering on: %v", d.Warnings)
	}
}

// A lock wait read from INNODB_TRX holds only while the session still runs
// the statement it waited in: the next statement (a new QUERY_ID on
// MariaDB, a new text on MySQL) is not waiting.
func TestLockWaitHoldsForItsStatement(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101119, my.CapInnodbMetrics)
	stmt := "UPDATE rt.offline_user_session SET version = 3 WHERE user_session_id = 'a'"
	m.ExpectPrepare(mocksql.SQL(t, my.Name, "innodb_lock_waits_sample", s.VersionNum)).ExpectQuery().
		WillReturnRows(sqlmock.NewRows([]string{"trx_mysql_thread_id", "trx_query", "lock_type"}).
			AddRow(int64(41), stmt, "RECORD").
			AddRow(int64(42), "DELETE FROM rt.x WHERE id = 1", "RECORD")) // 42 has moved on
	prep, err := db.PrepareContext(context.Background(), mocksql.SQL(t, my.Name, "innodb_lock_waits_sample", s.VersionNum))
	if err != nil {
		t.Fatal(err)
	}
	lw := &lockWaits{stmt: prep}
	procs := []process{{id: 41, stmt: stmt, queryID: 900}, {id: 42, stmt: "SELECT 1", queryID: 77}}
	if err := lw.refresh(context.Background(), procs); err != nil {
		t.Fatal(err)
	}
	if typ, ok := lw.waiting(procs[0]); !ok || typ != "RECORD" {
		t.Errorf("41 waits in its statement: %q %v", typ, ok)
	}
	if _, ok := lw.waiting(procs[1]); ok {
		t.Error("42 runs another statement than the one it waited in")
	}
	if _, ok := lw.waiting(process{id: 41, stmt: stmt, queryID: 901}); ok {
		t.Error("the same text as a new statement (QUERY_ID) is not the wait")
	}
	if err := lw.refresh(context.Background(), procs); err != nil { // within lockWaitEvery: not read again
		t.Fatal(err)
	}
}
