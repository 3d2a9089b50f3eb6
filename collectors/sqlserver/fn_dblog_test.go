package sqlserver

import (
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

func windowSnaps(s dialects.Server, start, end string) (*collectors.Snapshot, *collectors.Snapshot) {
	objs := []collectors.Object{
		{Level: collectors.Table, Schema: sch, Name: "offline_user_session"},
		{Level: collectors.Index, Schema: sch, Name: "constraint_offl_us_ses_pk2", Table: "offline_user_session", Info: map[string]string{"method": "btree"}},
		{Level: collectors.Index, Schema: sch, Name: "idx_user_session_expiration_last_refresh", Table: "offline_user_session", Info: map[string]string{"method": "btree"}},
		{Level: collectors.Index, Schema: sch, Name: "idx_offline_uss_by_broker_session_id", Table: "offline_user_session", Info: map[string]string{"method": "btree", "partial": "true"}},
	}
	return &collectors.Snapshot{Server: s, Marks: map[string]string{MarkLogEnd: start}, Objects: objs},
		&collectors.Snapshot{Server: s, Marks: map[string]string{MarkLogEnd: end}, Objects: objs}
}

func TestFnDblogMarks(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019)
	mock.ExpectQuery(text(t, "fn_dblog_end_lsn", s)).WillReturnRows(sqlmock.NewRows([]string{"lsn"}).AddRow("0000002a:000000f0:0001"))
	m, err := FnDblogMark{}.Marks(ctx(), db, s)
	if err != nil || m[MarkLogEnd] != "0000002a:000000f0:0001" {
		t.Fatalf("marks = %v, %v", m, err)
	}
	// A failing read never aborts the snapshot: it is kept for FnDblog to report.
	db, mock = mocksql.New(t)
	mock.ExpectQuery(text(t, "fn_dblog_end_lsn", s)).WillReturnError(errors.New("mssql: boom"))
	m, err = FnDblogMark{}.Marks(ctx(), db, s)
	if err != nil || m[markError] != "mssql: boom" {
		t.Fatalf("marks = %v, %v", m, err)
	}
	// Without sysadmin nothing is read at all (the mock expects no query).
	s.Set(ms.CapFnDblog, false, "no sysadmin")
	if m, err := (FnDblogMark{}).Marks(ctx(), db, s); m != nil || err != nil {
		t.Fatalf("marks without sysadmin = %v, %v", m, err)
	}
}

func TestFnDblogPerIndexLogBytes(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019)
	before, after := windowSnaps(s, "0000002a:000000f0:0001", "0000002c:00000010:0004")
	mock.ExpectQuery(text(t, "fn_dblog_min_lsn", s)).WillReturnRows(sqlmock.NewRows([]string{"lsn"}).AddRow("00000029:00000001:0001"))
	mock.ExpectQuery(text(t, "fn_dblog", s)).WithArgs("0000002a:000000f0:0001", "0000002c:00000010:0004").
		WillReturnRows(sqlmock.NewRows([]string{"AllocUnitName", "n", "bytes"}).
			AddRow(strings.ToUpper(sch)+".OFFLINE_USER_SESSION.IDX_USER_SESSION_EXPIRATION_LAST_REFRESH", 3000, 420000).
			AddRow(sch+".offline_user_session.constraint_offl_us_ses_pk2", 1600, 900000).
			AddRow("dbo.other.pk", 10, 1000).
			AddRow(nil, 1500, 90000)) // commits, checkpoints: no object
	cs, err := FnDblog{}.CollectInterval(ctx(), db, s, before, after)
	if err != nil {
		t.Fatal(err)
	}
	lr := find(t, cs, collectors.Index, sch+".idx_user_session_expiration_last_refresh", "log_bytes")
	if lr.Value != 420000 || !lr.Interval || lr.Exactness != result.Exact || !strings.Contains(lr.Note, "sysadmin") {
		t.Errorf("index log_bytes = %+v", lr)
	}
	if c := find(t, cs, collectors.Index, sch+".idx_offline_uss_by_broker_session_id", "log_bytes"); c.Value != 0 {
		t.Errorf("an index with no records gets 0, got %v", c.Value)
	}
	if c := find(t, cs, collectors.Table, sch+".offline_user_session", "log_bytes"); c.Value != 1320000 {
		t.Errorf("table log_bytes = %v, want both its indexes", c.Value)
	}
	if c := find(t, cs, collectors.DB, "", "log_records"); c.Value != 6110 {
		t.Errorf("database log_records = %v", c.Value)
	}
	if c := find(t, cs, collectors.DB, "", "log_record_bytes"); c.Value != 1411000 {
		t.Errorf("database log_record_bytes = %v", c.Value)
	}
}

func TestFnDblogRefusesATruncatedWindow(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019)
	s.SetProp(ms.PropRecoveryModel, "SIMPLE")
	before, after := windowSnaps(s, "0000002a:000000f0:0001", "0000002c:00000010:0004")
	mock.ExpectQuery(text(t, "fn_dblog_min_lsn", s)).WillReturnRows(sqlmock.NewRows([]string{"lsn"}).AddRow("0000002b:00000001:0001"))
	_, err := FnDblog{}.CollectInterval(ctx(), db, s, before, after)
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), "SIMPLE") {
		t.Fatalf("want a truncation error, got %v", err)
	}
	// A mark that could not be read is reported as such.
	before.Marks = map[string]string{markError: "mssql: boom"}
	if _, err := (FnDblog{}).CollectInterval(ctx(), db, s, before, after); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("want the mark's error, got %v", err)
	}
}

func TestFnDblogNeedsSysadminAndSaysSo(t *testing.T) {
	s := server(ms.Version2019)
	s.Set(ms.CapFnDblog, false, "needs sysadmin")
	wantPrivilege(t, FnDblog{}.Supports(s), "sysadmin (sys.fn_dblog)", "ALTER SERVER ROLE sysadmin ADD MEMBER [wa_login]")
	wantUnsupported(t, FnDblog{}.Supports(azure()))

	// The deriver turns the missing collector into per-index "unavailable, why".
	before, after := windowSnaps(s, "a", "b")
	d, err := collectors.Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	d.Missing = append(d.Missing, collectors.Missing{Collector: "fn_dblog", Reason: "missing privilege sysadmin (sys.fn_dblog)", Fix: "ALTER SERVER ROLE sysadmin ADD MEMBER [wa_login]"})
	DeriveLogBytesUnavailable(d)
	m := d.Get(collectors.Key{Level: collectors.Index, Object: sch + ".idx_user_session_expiration_last_refresh", Metric: "log_bytes"})
	if m.Exactness != result.Unavailable || !strings.Contains(m.Note, "sysadmin") || !strings.Contains(m.Note, "ALTER SERVER ROLE") {
		t.Fatalf("log_bytes should be unavailable with the reason, got %+v", m)
	}
	// A measured value is never overwritten.
	k := collectors.Key{Level: collectors.Index, Object: sch + ".constraint_offl_us_ses_pk2", Metric: "log_bytes"}
	d.Values[k] = result.New(42, result.Exact, "sys.fn_dblog")
	DeriveLogBytesUnavailable(d)
	if d.Values[k].V() != 42 {
		t.Fatalf("measured log_bytes overwritten: %+v", d.Values[k])
	}
}
