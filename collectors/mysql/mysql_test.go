package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func server(version int, caps ...string) dialects.Server {
	s := dialects.Server{Dialect: my.Name, VersionNum: version, Flavor: my.FlavorMySQL}
	if version >= my.MariaDBBase {
		s.Flavor = my.FlavorMariaDB
	}
	s.SetProp(my.PropHostUser, "'app'@'%'")
	for _, c := range caps {
		s.Set(c, true, "")
	}
	return s
}

func byMetric(cs []collectors.Counter) map[string]collectors.Counter {
	out := map[string]collectors.Counter{}
	for _, c := range cs {
		out[c.Key.String()] = c
	}
	return out
}

func statusRows(kv ...string) *sqlmock.Rows {
	r := sqlmock.NewRows([]string{"Variable_name", "Value"})
	for i := 0; i < len(kv); i += 2 {
		r.AddRow(kv[i], kv[i+1])
	}
	return r
}

// MySQL 8.0.30+: the LSN is Innodb_redo_log_current_lsn, block-framed, and
// rows come from Innodb_rows_*.
func TestGlobalStatusMySQLRedoLSN(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80036, my.CapRedoLSN, my.CapInnodbRows)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status", s.VersionNum)).WillReturnRows(statusRows(
		"Innodb_redo_log_current_lsn", "19771392", "Innodb_os_log_written", "555", "Innodb_rows_inserted", "10",
		"Innodb_rows_updated", "20", "Innodb_rows_deleted", "3", "Handler_write", "99", "Innodb_row_lock_waits", "2", "Innodb_row_lock_time", "7"))
	cs, err := GlobalStatus{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	lb := got["database:log_bytes"]
	if lb.Value != 19771392 || lb.Exactness != result.Exact || !strings.HasPrefix(lb.Source, "Innodb_redo_log_current_lsn") || !strings.Contains(lb.Note, "496/512") {
		t.Errorf("log_bytes %+v", lb)
	}
	if c := got["database:rows_inserted"]; c.Value != 10 || !strings.HasPrefix(c.Source, "Innodb_rows_inserted") {
		t.Errorf("rows_inserted %+v", c)
	}
	if c := got["database:log_bytes_written"]; c.Value != 555 {
		t.Errorf("log_bytes_written %+v", c)
	}
	if c := got["database:waits.row_lock"]; c.Value != 2 {
		t.Errorf("waits.row_lock %+v", c)
	}
	if _, ok := got["database:binlog_bytes"]; ok {
		t.Error("binlog bytes from status on MySQL")
	}
}

// MySQL before 8.0.30: no LSN status, the file writes stand in, labelled approx.
func TestGlobalStatusMySQLBefore8030(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80028, my.CapInnodbRows)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status", s.VersionNum)).WillReturnRows(statusRows("Innodb_os_log_written", "4096", "Innodb_rows_inserted", "1"))
	cs, err := GlobalStatus{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if lb := byMetric(cs)["database:log_bytes"]; lb.Value != 4096 || lb.Exactness != result.Approx || !strings.Contains(lb.Note, "8.0.30") {
		t.Errorf("log_bytes %+v", lb)
	}
}

func TestGlobalStatusMariaDB(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(1101119, my.CapLSNCurrent, my.CapBinlogStatus)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "global_status", s.VersionNum)).WillReturnRows(statusRows(
		"Innodb_lsn_current", "44760", "Innodb_os_log_written", "356", "Handler_write", "5", "Handler_update", "6", "Handler_delete", "7", "Binlog_bytes_written", "800"))
	cs, err := GlobalStatus{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	if lb := got["database:log_bytes"]; lb.Value != 44760 || !strings.HasPrefix(lb.Source, "Innodb_lsn_current") || lb.Note != "" {
		t.Errorf("log_bytes %+v", lb)
	}
	if c := got["database:rows_updated"]; c.Value != 6 || !strings.HasPrefix(c.Source, "Handler_update") || !strings.Contains(c.Note, "every storage engine") {
		t.Errorf("rows_updated %+v", c)
	}
	if c := got["database:binlog_bytes"]; c.Value != 800 {
		t.Errorf("binlog_bytes %+v", c)
	}
}

// MySQL binlog bytes from performance_schema, with the exact text.
func TestFileSummaryByEventNameMySQL(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80403, my.CapBinlog, my.CapPerfSchemaBinlog)
	text := mocksql.SQL(t, my.Name, "file_summary_by_event_name", s.VersionNum)
	if !strings.Contains(text, "'wait/io/file/sql/binlog'") {
		t.Fatal(text)
	}
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"SUM_NUMBER_OF_BYTES_WRITE"}).AddRow(123456))
	if err := (FileSummaryByEventName{}).Supports(s); err != nil {
		t.Fatal(err)
	}
	cs, err := FileSummaryByEventName{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil || len(cs) != 1 || cs[0].Metric != "binlog_bytes" || cs[0].Value != 123456 {
		t.Fatalf("%+v %v", cs, err)
	}
	// MariaDB: nothing to read here (Binlog_bytes_written is in global_status), and nothing reported missing.
	if cs, err := (FileSummaryByEventName{}).Collect(context.Background(), db, server(1101119, my.CapBinlog), collectors.Scope{}); err != nil || cs != nil {
		t.Errorf("MariaDB: %v %v", cs, err)
	}
	if _, err := queries.Get(my.Name, "file_summary_by_event_name", 1101119); err == nil {
		t.Error("file_summary_by_event_name must be MySQL-only")
	}
}

func TestFileSummaryDenied(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80403, my.CapBinlog, my.CapPerfSchemaBinlog)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "file_summary_by_event_name", s.VersionNum)).WillReturnError(&driver.MySQLError{Number: 1142, Message: "SELECT command denied"})
	_, err := FileSummaryByEventName{}.Collect(context.Background(), db, s, collectors.Scope{})
	var pe *dialects.PrivilegeError
	if !errors.As(err, &pe) || !strings.Contains(pe.Grant, "GRANT SELECT ON performance_schema.file_summary_by_event_name TO 'app'@'%'") {
		t.Errorf("%v", err)
	}
}

// MySQL reads INNODB_METRICS' STATUS column; a disabled counter gives nothing.
func TestInnodbMetricsMySQLStatusColumn(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80036, my.CapInnodbMetrics, my.CapIndexMonitor)
	text := mocksql.SQL(t, my.Name, "innodb_metrics", s.VersionNum)
	if !strings.Contains(text, "STATUS = 'enabled'") {
		t.Fatal(text)
	}
	if maria := mocksql.SQL(t, my.Name, "innodb_metrics", 1101119); !strings.Contains(maria, "ENABLED") || strings.Contains(maria, "STATUS") {
		t.Fatal(maria)
	}
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"NAME", "COUNT", "on"}).
		AddRow("index_page_splits", 17, 1).AddRow("index_page_merge_attempts", 5, 1).AddRow("index_page_merge_successful", 9, 0))
	cs, err := InnodbMetrics{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	if got["database:page_splits"].Value != 17 || got["database:page_merge_attempts"].Value != 5 {
		t.Errorf("%+v", got)
	}
	if _, ok := got["database:page_merges"]; ok {
		t.Error("a disabled counter was reported")
	}
}

func TestInnodbMetricsSupports(t *testing.T) {
	t.Parallel()
	s := server(1101119)
	s.Set(my.CapInnodbMetrics, false, "needs PROCESS")
	var pe *dialects.PrivilegeError
	if err := (InnodbMetrics{}).Supports(s); !errors.As(err, &pe) || pe.Grant != "GRANT PROCESS ON *.* TO 'app'@'%'" {
		t.Errorf("%v", err)
	}
	// Monitors off and a login that may not turn them on: the privilege.
	s = server(1101119, my.CapInnodbMetrics)
	s.Set(my.CapMonitorAdmin, false, "")
	if err := (InnodbMetrics{}).Supports(s); !errors.As(err, &pe) || pe.Grant != "GRANT SUPER ON *.* TO 'app'@'%'" {
		t.Errorf("%v", err)
	}
	s = server(80036, my.CapInnodbMetrics)
	s.Set(my.CapMonitorAdmin, false, "")
	if err := (InnodbMetrics{}).Supports(s); !errors.As(err, &pe) || pe.Grant != "GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO 'app'@'%'" {
		t.Errorf("%v", err)
	}
	// Monitors off and a login that may (root): no privilege is missing.
	s = server(1101119, my.CapInnodbMetrics, my.CapMonitorAdmin)
	err := (InnodbMetrics{}).Supports(s)
	if err == nil || errors.As(err, &pe) || strings.Contains(err.Error(), "GRANT") || !strings.Contains(err.Error(), "--enable-monitors") {
		t.Errorf("root is told: %v", err)
	}
}

func TestQueriesCoverBothFlavors(t *testing.T) {
	t.Parallel()
	for _, v := range []int{80028, 80036, 80403, 1101119, 1110403} {
		for _, n := range []string{"global_status", "innodb_metrics", "tables", "statistics", "innodb_index_stats"} {
			if _, err := queries.Get(my.Name, n, v); err != nil {
				t.Error(err)
			}
		}
	}
}

func idx(schema, table, name, cols string, primary bool) collectors.Object {
	o := collectors.Object{Level: collectors.Index, Schema: schema, Table: table, Name: name, Info: map[string]string{"columns": cols, "method": "btree"}}
	if primary {
		o.Info["primary"] = "true"
	}
	return o
}

// The rules: INSERT -> every index; UPDATE -> only indexes whose key columns
// changed (delete-mark + insert), in place on PRIMARY; DELETE -> delete-mark
// everywhere; a primary key change moves every index.
func TestDeriveIndexWrites(t *testing.T) {
	t.Parallel()
	d := &collectors.Delta{Server: server(1101119), Values: map[collectors.Key]result.Metric{}}
	d.Objects = []collectors.Object{
		idx("db", "t", "t.PRIMARY", "id", true),
		idx("db", "t", "ia", "a", false),
		idx("db", "t", "ib", "b,id", false),
		idx("db", "u", "u.PRIMARY", "k", true),
		idx("db", "u", "uv", "v", false),
	}
	d.Writes = []collectors.Write{
		{Statement: "ins", Schema: "db", Table: "t", Kind: "insert", Rows: 100},
		{Statement: "upd_a", Schema: "db", Table: "t", Kind: "update", Columns: []string{"a", "c"}, Rows: 40},
		{Statement: "upd_c", Schema: "db", Table: "t", Kind: "update", Columns: []string{"c"}, Rows: 7},
		{Statement: "del", Schema: "db", Table: "t", Kind: "delete", Rows: 5},
		{Statement: "upd_pk", Table: "u", Kind: "update", Columns: []string{"K"}, Rows: 3},
	}
	DeriveIndexWrites(d)
	want := map[string]float64{
		"db.t.PRIMARY:leaf_inserts": 100, "db.t.PRIMARY:leaf_deletes": 5, "db.t.PRIMARY:leaf_updates": 47,
		"db.ia:leaf_inserts": 140, "db.ia:leaf_deletes": 45,
		"db.ib:leaf_inserts": 100, "db.ib:leaf_deletes": 5,
		"db.u.PRIMARY:leaf_inserts": 3, "db.u.PRIMARY:leaf_deletes": 3, "db.u.PRIMARY:leaf_updates": 0,
		"db.uv:leaf_inserts": 3, "db.uv:leaf_deletes": 3,
	}
	for k, v := range want {
		obj, metric, _ := strings.Cut(k, ":")
		m := d.Get(collectors.NewKey(collectors.Index, obj, result.Family(metric)))
		if !m.OK() || m.V() != v || m.Exactness != result.Derived || !strings.HasPrefix(m.Source, "derived: InnoDB rules") {
			t.Errorf("%s = %+v (value %v), want %v", k, m, m.V(), v)
		}
	}
	if src := d.Get(collectors.NewKey(collectors.Index, "db.ia", result.LeafInserts)).Source; !strings.Contains(src, ruleUpdateKey) {
		t.Errorf("ia source %q", src)
	}
	if m := d.Get(collectors.NewKey(collectors.Table, "db.t", result.RowsUpdated)); m.V() != 47 || m.Exactness != result.Derived {
		t.Errorf("rows_updated %+v", m)
	}
}

func TestDeriveWithoutStatements(t *testing.T) {
	t.Parallel()
	d := &collectors.Delta{Server: server(1101119), Values: map[collectors.Key]result.Metric{}}
	d.Objects = []collectors.Object{idx("db", "t", "ia", "a", false)}
	DeriveIndexWrites(d)
	if m := d.Get(collectors.NewKey(collectors.Index, "db.ia", result.LeafInserts)); m.Exactness != result.Unavailable || !strings.Contains(m.Note, "no per-index write counter") {
		t.Errorf("%+v", m)
	}
}

func TestDeriveUnavailable(t *testing.T) {
	t.Parallel()
	d := &collectors.Delta{Server: server(80036, my.CapRedoLSN), Values: map[collectors.Key]result.Metric{}}
	d.Server.Set(my.CapBinlog, false, "binary logging is off")
	d.Values[collectors.NewKey(collectors.DB, "", result.LogBytes)] = result.New(5120, result.Exact, "Innodb_redo_log_current_lsn difference")
	DeriveUnavailable(d)
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.BinlogBytes)); m.Exactness != result.Unavailable || m.Note != "binary logging is off" {
		t.Errorf("binlog %+v", m)
	}
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.LogPayloadBytes)); m.V() != 4960 || m.Exactness != result.Derived {
		t.Errorf("payload %+v", m)
	}
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.PageSplits)); m.Exactness != result.Unavailable {
		t.Errorf("page_splits %+v", m)
	}
}

// Persistent statistics not recalculated in the window are no measurement.
func TestDeriveLeafPagesStale(t *testing.T) {
	t.Parallel()
	k := collectors.NewKey(collectors.Index, "db.ia", result.LeafPages)
	c := collectors.Counter{Key: k, Value: 5, Exactness: result.Approx, Gauge: true, Note: "as of the last statistics recalculation (2026-01-01 00:00:00); ..."}
	fresh := c
	fresh.Value, fresh.Note = 9, "as of the last statistics recalculation (2026-01-01 00:00:07); ..."
	for _, tc := range []struct {
		after collectors.Counter
		ok    bool
	}{{c, false}, {fresh, true}} {
		d, err := collectors.Diff(&collectors.Snapshot{Counters: []collectors.Counter{c}}, &collectors.Snapshot{Counters: []collectors.Counter{tc.after}})
		if err != nil {
			t.Fatal(err)
		}
		DeriveLeafPages(d)
		if m := d.Get(k); m.OK() != tc.ok || (!tc.ok && !strings.Contains(m.Note, "2026-01-01 00:00:00")) {
			t.Errorf("after %v: %+v", tc.after.Value, m)
		}
	}
}
