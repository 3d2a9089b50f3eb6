package oracle

import (
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var segCols = []string{"owner", "object_name", "object_type", "subobject_name", "dataobj#", "statistic_name", "value", "table_owner", "table_name", "index_type"}

// segstatNames is V$SEGSTAT_NAME as 19c lists it: 'logical reads' and 'db
// block changes' are sampled.
func segstatNames() *sqlmock.Rows {
	r := sqlmock.NewRows([]string{"name", "sampled"})
	for _, x := range [][2]string{{"logical reads", "YES"}, {"buffer busy waits", "NO"}, {"db block changes", "YES"},
		{"physical reads", "NO"}, {"physical writes", "NO"}, {"ITL waits", "NO"}, {"row lock waits", "NO"}} {
		r.AddRow(x[0], x[1])
	}
	return r
}

const idx = "IDX_USER_SESSION_EXPIRATION_LAST_REFRESH"

func segRows(changes int64, dataobj int64) *sqlmock.Rows {
	return sqlmock.NewRows(segCols).
		AddRow(own, idx, "INDEX", nil, dataobj, "db block changes", changes, own, "OFFLINE_USER_SESSION", "NORMAL").
		AddRow(own, idx, "INDEX", nil, dataobj, "ITL waits", 2, own, "OFFLINE_USER_SESSION", "NORMAL").
		AddRow(own, idx, "INDEX", nil, dataobj, "buffer busy waits", nil, own, "OFFLINE_USER_SESSION", "NORMAL"). // NULL value reads 0
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P1", 74001, "db block changes", 1000, nil, nil, nil).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P2", 74002, "db block changes", 500, nil, nil, nil).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE PARTITION", "P2", 74002, "row lock waits", 3, nil, nil, nil).
		AddRow(own, "IDX_OF_INVISIBLE_TABLE", "INDEX", nil, 74100, "db block changes", 9, nil, nil, nil).
		AddRow(own, "SYS_IL0000073001C00006$$", "INDEX", nil, 74300, "db block changes", 44, own, "OFFLINE_USER_SESSION", "LOB").
		AddRow("WA", "IDX_IN_LOGIN_SCHEMA", "INDEX", nil, 74400, "db block changes", 7, own, "OFFLINE_USER_SESSION", "NORMAL").
		AddRow(own, "OFFLINE_CLIENT_SESSION", "TABLE", nil, 74200, "db block changes", 9, nil, nil, nil)
}

func TestSegmentStatisticsValues(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	owners := ownerArg(scope)
	mock.ExpectQuery(text(t, "v_segstat_name", s)).WillReturnRows(segstatNames())
	mock.ExpectQuery(text(t, "v_segment_statistics", s)).WithArgs(owners, owners).WillReturnRows(segRows(16500, 73005))
	cs, err := VSegmentStatistics{}.Collect(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	// 'db block changes' is sampled (V$SEGSTAT_NAME.SAMPLED = 'YES'): an estimate.
	bc := find(t, cs, collectors.Index, own+"."+idx, "block_changes")
	if bc.Value != 16500 || bc.Exactness != result.Approx || bc.Source != "V$SEGMENT_STATISTICS 'db block changes'" ||
		!strings.Contains(bc.Note, "not an insert count") || !strings.Contains(bc.Note, "SAMPLED = 'YES'") {
		t.Errorf("block_changes = %+v", bc)
	}
	if c := find(t, cs, collectors.Index, own+"."+idx, "itl_waits"); c.Value != 2 || c.Exactness != result.Exact {
		t.Errorf("itl_waits (not sampled) = %+v", c)
	}
	// An index in another schema on a table in scope is the table's index.
	if c := find(t, cs, collectors.Index, "WA.IDX_IN_LOGIN_SCHEMA", "block_changes"); c.Value != 7 {
		t.Errorf("index in the login's schema = %+v", c)
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
		if strings.Contains(c.Object, "INVISIBLE") || strings.Contains(c.Object, "CLIENT") || strings.Contains(c.Object, "SYS_IL") {
			t.Fatalf("out-of-scope or LOB-index counter %+v", c)
		}
	}
}

func TestSegmentStatisticsResets(t *testing.T) {
	s := server()
	owners := ownerArg(scope)
	read := func(changes, dataobj int64) []collectors.Counter {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "v_segstat_name", s)).WillReturnRows(segstatNames())
		mock.ExpectQuery(text(t, "v_segment_statistics", s)).WithArgs(owners, owners).WillReturnRows(segRows(changes, dataobj))
		cs, err := VSegmentStatistics{}.Collect(ctx(), db, s, scope)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.Index, Object: own + "." + idx, Metric: "block_changes"}
	d, _ := collectors.Diff(snap(s, read(1000, 73005)), snap(s, read(17500, 73005)))
	if m := d.Values[k]; m.V() != 16500 || m.Exactness != result.Approx {
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

	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "v_segstat_name", s)).WillReturnRows(segstatNames())
	mock.ExpectQuery(text(t, "v_segment_statistics", s)).WithArgs("", "").WillReturnError(ora942)
	_, err = VSegmentStatistics{}.Collect(ctx(), db, server(), collectors.Scope{})
	wantPrivilege(t, err, "v_$segment_statistics")
}

// TestSegmentStatisticsSampledUnknown: without V$SEGSTAT_NAME nothing is
// claimed exact, and the reason says why.
func TestSegmentStatisticsSampledUnknown(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	owners := ownerArg(scope)
	mock.ExpectQuery(text(t, "v_segstat_name", s)).WillReturnError(ora942)
	mock.ExpectQuery(text(t, "v_segment_statistics", s)).WithArgs(owners, owners).WillReturnRows(segRows(16500, 73005))
	cs, err := VSegmentStatistics{}.Collect(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"block_changes", "itl_waits"} {
		if c := find(t, cs, collectors.Index, own+"."+idx, m); c.Exactness != result.Approx || !strings.Contains(c.Note, "V$SEGSTAT_NAME could not be read") {
			t.Errorf("%s = %+v", m, c)
		}
	}
}
