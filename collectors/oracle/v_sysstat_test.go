package oracle

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

func sysRows(redo int64) *sqlmock.Rows {
	return sqlmock.NewRows([]string{"name", "value"}).
		AddRow("branch node splits", 4).
		AddRow("db block changes", 90000).
		AddRow("leaf node 90-10 splits", 300).
		AddRow("leaf node splits", 420).
		AddRow("redo entries", 50000).
		AddRow("redo size", redo).
		AddRow("redo wastage", 700000).
		AddRow("undo change vector size", 2000000)
}

func TestSysstatValues(t *testing.T) {
	db, mock := mockDB(t)
	s := server()
	mock.ExpectQuery(text("v_sysstat", s)).WillReturnRows(sysRows(8817848))
	cs, err := VSysstat{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"log_bytes": 8817848, "log_records": 50000, "undo_bytes": 2000000, "page_splits": 420,
		"leaf_node_90_10_splits": 300, "branch_node_splits": 4, "block_changes": 90000, "redo_wastage_bytes": 700000}
	for m, v := range want {
		c := find(t, cs, collectors.DB, "", m)
		if c.Value != v || c.Exactness != result.Exact || !strings.HasPrefix(c.Source, "V$SYSSTAT '") {
			t.Errorf("%s = %+v, want %v", m, c, v)
		}
	}
	if !strings.Contains(find(t, cs, collectors.DB, "", "page_splits").Note, "90-10") {
		t.Error("page_splits must say it includes 90-10 splits")
	}
}

func TestSysstatResetAndPermission(t *testing.T) {
	s := server()
	read := func(redo int64) []collectors.Counter {
		db, mock := mockDB(t)
		mock.ExpectQuery(text("v_sysstat", s)).WillReturnRows(sysRows(redo))
		cs, err := VSysstat{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.DB, Metric: "log_bytes"}
	d, _ := collectors.Diff(snap(s, read(1000)), snap(s, read(9000)))
	if d.Values[k].V() != 8000 {
		t.Errorf("delta = %+v", d.Values[k])
	}
	d, _ = collectors.Diff(snap(s, read(9000)), snap(s, read(1000)))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Errorf("lower redo size must be a reset, got %+v", m)
	}

	db, mock := mockDB(t)
	mock.ExpectQuery(text("v_sysstat", s)).WillReturnError(ora1031)
	_, err := VSysstat{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "v_$sysstat")
}
