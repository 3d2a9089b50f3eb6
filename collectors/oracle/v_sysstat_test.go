package oracle

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
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
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "v_sysstat", s)).WillReturnRows(sysRows(8817848))
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
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "v_sysstat", s)).WillReturnRows(sysRows(redo))
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

	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "v_sysstat", s)).WillReturnError(ora1031)
	_, err := VSysstat{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "v_$sysstat")
}

// TestPDBReadsTheContainersOwnViews: connected to a PDB (CON_ID > 1) the
// figures come from V$CON_SYSSTAT and V$CON_SYSTEM_EVENT, and say so; in the
// root (1) and outside a CDB (0) from the instance views.
func TestPDBReadsTheContainersOwnViews(t *testing.T) {
	for _, c := range []struct {
		conID, sysstat, event, source string
	}{{"3", "v_con_sysstat", "v_con_system_event", "V$CON_SYSSTAT 'redo size' (this PDB, CON_ID 3"},
		{"1", "v_sysstat", "v_system_event", "V$SYSSTAT 'redo size' (instance-wide"},
		{"0", "v_sysstat", "v_system_event", "V$SYSSTAT 'redo size' (instance-wide"}} {
		s := server()
		s.SetProp(ora.PropConID, c.conID)
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, c.sysstat, s)).WillReturnRows(sysRows(1000))
		mock.ExpectQuery(text(t, c.event, s)).WillReturnRows(sqlmock.NewRows([]string{"event", "total_waits", "time_waited_micro"}).AddRow("log file sync", 5, 9000))
		cs, err := VSysstat{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := VSystemEvent{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if lb := find(t, cs, collectors.DB, "", "log_bytes"); !strings.HasPrefix(lb.Source, c.source) {
			t.Errorf("CON_ID %s: log_bytes source = %q", c.conID, lb.Source)
		}
		w := find(t, ev, collectors.DB, "", "waits.log_file_sync")
		if (c.conID == "3") != strings.HasPrefix(w.Source, "V$CON_SYSTEM_EVENT") {
			t.Errorf("CON_ID %s: waits source = %q", c.conID, w.Source)
		}
	}
	if !strings.Contains(text(t, "v_con_sysstat", server()), "FROM v$con_sysstat") || !strings.Contains(text(t, "v_con_system_event", server()), "FROM v$con_system_event") {
		t.Error("the PDB blocks must read the V$CON_ views")
	}
}
