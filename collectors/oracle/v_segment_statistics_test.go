package oracle

import (
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/result"
)

var segCols = []string{"owner", "object_name", "object_type", "subobject_name", "dataobj#", "statistic_name", "value", "table_name"}

const idx = "IDX_USER_SESSION_EXPIRATION_LAST_REFRESH"

func segRows(changes int64, dataobj int64) *sqlmock.Rows {
	return sqlmock.NewRows(segCols).
		AddRow(own, idx, "INDEX", nil, dataobj, "db block changes", changes, "OFFLINE_USER_SESSION").
		AddRow(own, idx, "INDEX", nil, dataobj, "ITL waits", 2, "OFFLINE_USER_SESSION").
		AddRow(own, idx, "INDEX", nil, dataobj, "buffer busy waits", nil, "OFFLINE_USER_SESSION"). // NULL value reads 0
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P1", 74001, "db block changes", 1000, nil).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P2", 74002, "db block changes", 500, nil).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P2", 74002, "row lock waits", 3, nil).
		AddRow(own, "IDX_OF_INVISIBLE_TABLE", "INDEX", nil, 74100, "db block changes", 9, nil).
		AddRow(own, "OFFLINE_CLIENT_SESSION", "TABLE", nil, 74200, "db block changes", 9, nil)
}

func TestSegmentStatisticsValues(t *testing.T) {
	db, mock := mockDB(t)
	s := server()
	owners := ownerArg(scope)
	mock.ExpectQuery(text("v_segment_statistics", s)).WithArgs(owners, owners).WillReturnRows(segRows(16500, 73005))
	cs, err := VSegmentStatistics{}.Collect(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	bc := find(t, cs, collectors.Index, own+"."+idx, "block_changes")
	if bc.Value != 16500 || bc.Exactness != result.Exact || bc.Source != "V$SEGMENT_STATISTICS 'db block changes'" || !strings.Contains(bc.Note, "not an insert count") {
		t.Errorf("block_changes = %+v", bc)
	}
	if c := find(t, cs, collectors.Index, own+"."+idx, "itl_waits"); c.Value != 2 {
		t.Errorf("itl_waits = %v", c.Value)
	}
	if c := find(t, cs, collectors.Index, own+"."+idx, "buffer_busy_waits"); c.Value != 0 {
		t.Errorf("NULL value should read 0, got %v", c.Value)
	}
	tb := find(t, cs, collectors.Table, own+".OFFLINE_USER_SESSION", "block_changes")
	if tb.Value != 1500 || tb.Identity != "dataobj=P1:74001,P2:74002" {
		t.Errorf("partitions should sum with both segments in the identity: %+v", tb)
	}
	for _, c := range cs {
		if c.Metric == "leaf_inserts" {
			t.Fatalf("Oracle must not emit leaf_inserts from block changes: %+v", c)
		}
		if strings.Contains(c.Object, "INVISIBLE") || strings.Contains(c.Object, "CLIENT") {
			t.Fatalf("out-of-scope counter %+v", c)
		}
	}
}

func TestSegmentStatisticsResets(t *testing.T) {
	s := server()
	owners := ownerArg(scope)
	read := func(changes, dataobj int64) []collectors.Counter {
		db, mock := mockDB(t)
		mock.ExpectQuery(text("v_segment_statistics", s)).WithArgs(owners, owners).WillReturnRows(segRows(changes, dataobj))
		cs, err := VSegmentStatistics{}.Collect(ctx(), db, s, scope)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.Index, Object: own + "." + idx, Metric: "block_changes"}
	d, _ := collectors.Diff(snap(s, read(1000, 73005)), snap(s, read(17500, 73005)))
	if m := d.Values[k]; m.V() != 16500 || m.Exactness != result.Exact {
		t.Fatalf("delta = %+v", m)
	}
	// ALTER INDEX ... REBUILD: a new DATAOBJ#, counters restart (even if higher).
	d, _ = collectors.Diff(snap(s, read(1000, 73005)), snap(s, read(5000, 75000)))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) || !strings.Contains(m.Note, "recreated") {
		t.Fatalf("a new DATAOBJ# must be a reset, got %+v", m)
	}
	// The deriver says, per index, why there are no leaf inserts.
	d.Objects = []collectors.Object{{Level: collectors.Index, Schema: own, Name: idx, Table: "OFFLINE_USER_SESSION"}}
	DeriveNoLeafInserts(d)
	li := d.Get(collectors.Key{Level: collectors.Index, Object: own + "." + idx, Metric: "leaf_inserts"})
	if li.Exactness != result.Unavailable || !strings.Contains(li.Note, "block_changes") {
		t.Fatalf("leaf_inserts = %+v", li)
	}
}

func TestSegmentStatisticsNeedsTypicalAndGrant(t *testing.T) {
	s := server()
	s.Set(ora.CapStatisticsLevel, false, "STATISTICS_LEVEL is BASIC: Oracle keeps no segment statistics (fix: ALTER SYSTEM SET statistics_level = TYPICAL SCOPE = BOTH)")
	err := VSegmentStatistics{}.Supports(s)
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "ALTER SYSTEM SET statistics_level = TYPICAL") {
		t.Fatalf("BASIC must be unsupported with the fix, got %v", err)
	}
	// Unknown level (V$PARAMETER unreadable): try, and let the query say.
	unknown := server()
	delete(unknown.Caps, ora.CapStatisticsLevel)
	if err := (VSegmentStatistics{}).Supports(unknown); err != nil {
		t.Fatalf("unknown level should not refuse: %v", err)
	}

	db, mock := mockDB(t)
	mock.ExpectQuery(text("v_segment_statistics", s)).WithArgs("", "").WillReturnError(ora942)
	_, err = VSegmentStatistics{}.Collect(ctx(), db, server(), collectors.Scope{})
	wantPrivilege(t, err, "v_$segment_statistics")
}
