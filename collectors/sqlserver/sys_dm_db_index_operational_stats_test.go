package sqlserver

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var opCols = []string{"schema", "table", "index", "object_id", "index_id", "partition_number", "partition_id",
	"leaf_insert_count", "leaf_delete_count", "leaf_update_count", "leaf_ghost_count", "leaf_allocation_count", "leaf_page_merge_count",
	"page_latch_wait_count", "page_latch_wait_in_ms", "row_lock_wait_count", "row_lock_wait_in_ms"}

var scope = collectors.Scope{Schemas: []string{"WRITEAMP_RT_1_BASELINE"}, Tables: []string{"OFFLINE_USER_SESSION"}}

const sch = "writeamp_rt_1_baseline"

func opRows(leafIns int64, lastRefreshPartition int64) *sqlmock.Rows {
	return sqlmock.NewRows(opCols).
		// the clustered primary key: the table's rows
		AddRow(sch, "offline_user_session", "constraint_offl_us_ses_pk2", 101, 1, 1, 7001, 1500, 100, 15000, 50, 40, 0, 3, 7, 1, 2).
		// a two-partition nonclustered index: summed
		AddRow(sch, "offline_user_session", "idx_user_session_expiration_last_refresh", 101, 5, 1, lastRefreshPartition, leafIns, 10000, 0, 5000, 120, 2, 30, 90, 0, 0).
		AddRow(sch, "offline_user_session", "idx_user_session_expiration_last_refresh", 101, 5, 2, 7006, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0).
		// NULL counters (object dropped while read) count as zero; NULL partition_id is allowed
		AddRow(sch, "offline_user_session", "idx_offline_uss_by_user", 101, 2, 1, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil).
		// out of scope: another table, another schema
		AddRow(sch, "offline_client_session", "constraint_offl_cl_ses_pk3", 102, 1, 1, 7100, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9).
		AddRow("dbo", "offline_user_session", "pk", 103, 1, 1, 7200, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)
}

func TestOperationalStatsValues(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	mock.ExpectQuery(text(t, "sys_dm_db_index_operational_stats", s)).WillReturnRows(opRows(15000, 7005))
	cs, err := SysDmDbIndexOperationalStats{}.Collect(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	idx := sch + ".idx_user_session_expiration_last_refresh"
	checks := []struct {
		metric string
		value  float64
		e      result.Exactness
	}{
		{"leaf_inserts", 15020, result.Exact},
		{"leaf_deletes", 15000, result.Exact}, // 10000 deletes + 5000 ghosts
		{"leaf_updates", 0, result.Exact},
		{"leaf_allocations", 121, result.Exact},
		{"leaf_page_splits", 121, result.Approx},
		{"page_merges", 2, result.Exact},
		{"page_latch_waits", 30, result.Exact},
		{"page_latch_wait_ms", 90, result.Exact},
		{"row_lock_waits", 0, result.Exact},
	}
	for _, c := range checks {
		got := find(t, cs, collectors.Index, idx, c.metric)
		if got.Value != c.value || got.Exactness != c.e {
			t.Errorf("%s = %v (%s), want %v (%s)", c.metric, got.Value, got.Exactness, c.value, c.e)
		}
	}
	if got := find(t, cs, collectors.Index, idx, "leaf_inserts"); got.Source != "sys.dm_db_index_operational_stats.leaf_insert_count" {
		t.Errorf("source = %q", got.Source)
	}
	if n := find(t, cs, collectors.Index, idx, "leaf_page_splits").Note; n == "" || !strings.Contains(n, "end of an ever-increasing key") {
		t.Errorf("leaf_page_splits must say it counts end-of-index allocations, note %q", n)
	}
	// The clustered index gives the table's rows, labelled derived.
	tbl := sch + ".offline_user_session"
	if c := find(t, cs, collectors.Table, tbl, "rows_inserted"); c.Value != 1500 || c.Exactness != result.Derived {
		t.Errorf("rows_inserted = %v %s", c.Value, c.Exactness)
	}
	if c := find(t, cs, collectors.Table, tbl, "rows_updated"); c.Value != 15000 {
		t.Errorf("rows_updated = %v", c.Value)
	}
	if c := find(t, cs, collectors.Table, tbl, "rows_deleted"); c.Value != 150 {
		t.Errorf("rows_deleted = %v", c.Value)
	}
	if c := find(t, cs, collectors.Index, sch+".idx_offline_uss_by_user", "leaf_inserts"); c.Value != 0 {
		t.Errorf("NULL counters should read 0, got %v", c.Value)
	}
	absent(t, cs, sch+".constraint_offl_cl_ses_pk3")
	absent(t, cs, "dbo.pk")
	id := find(t, cs, collectors.Index, idx, "leaf_inserts").Identity
	if id != "object=101 index=5 partitions=p1:7005,p2:7006 started=2026-01-02T03:04:05Z" {
		t.Errorf("identity = %q", id)
	}
}

func TestOperationalStatsResetsThroughDiff(t *testing.T) {
	s := server(ms.Version2022 + 4135)
	collect := func(leafIns, part int64) []collectors.Counter {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "sys_dm_db_index_operational_stats", s)).WillReturnRows(opRows(leafIns, part))
		cs, err := SysDmDbIndexOperationalStats{}.Collect(ctx(), db, s, scope)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	idx := sch + ".idx_user_session_expiration_last_refresh"
	k := collectors.Key{Level: collectors.Index, Object: idx, Metric: "leaf_inserts"}

	// Normal window: 15000 -> 16500.
	d, err := collectors.Diff(snap(s, collect(15000, 7005)), snap(s, collect(16500, 7005)))
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Values[k]; !m.OK() || m.V() != 1500 {
		t.Fatalf("leaf_inserts delta = %+v, want 1500", m)
	}

	// Metadata cache eviction: the counter restarts lower. Never negative.
	d, err = collectors.Diff(snap(s, collect(15000, 7005)), snap(s, collect(300, 7005)))
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Values[k]; m.Exactness != result.Unavailable || m.Value != nil || !strings.Contains(m.Note, "counter reset") {
		t.Fatalf("evicted counter should be an unavailable reset, got %+v", m)
	}
	if !hasKey(d.Resets, k) || len(d.Warnings) == 0 {
		t.Fatalf("reset not reported: resets %v warnings %v", d.Resets, d.Warnings)
	}

	// Rebuilt index: a new rowset (partition_id) with a higher count is still a reset.
	d, err = collectors.Diff(snap(s, collect(15000, 7005)), snap(s, collect(20000, 9999)))
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Values[k]; m.Exactness != result.Unavailable || !strings.Contains(m.Note, "recreated") {
		t.Fatalf("rebuilt index should be a reset, got %+v", m)
	}
}

func TestOperationalStatsPermission(t *testing.T) {
	for _, tc := range []struct {
		vn        int
		privilege string
	}{{ms.Version2019 + 4375, "VIEW DATABASE STATE"}, {ms.Version2022 + 4135, "VIEW DATABASE PERFORMANCE STATE"}} {
		db, mock := mocksql.New(t)
		s := server(tc.vn)
		mock.ExpectQuery(text(t, "sys_dm_db_index_operational_stats", s)).WillReturnError(permissionDenied297)
		_, err := SysDmDbIndexOperationalStats{}.Collect(ctx(), db, s, scope)
		wantPrivilege(t, err, tc.privilege, "GRANT "+tc.privilege+" TO [wa]")
	}
	// The probe already knew: Supports says so before any query.
	s := server(ms.Version2019)
	s.Set(ms.CapViewDatabaseState, false, "no")
	wantPrivilege(t, SysDmDbIndexOperationalStats{}.Supports(s), "VIEW DATABASE STATE", "USE [kc]; GRANT VIEW DATABASE STATE TO [wa]")
	if err := (SysDmDbIndexOperationalStats{}).Supports(server(ms.Version2019)); err != nil {
		t.Fatalf("supported server refused: %v", err)
	}
}

func hasKey(ks []collectors.Key, k collectors.Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
