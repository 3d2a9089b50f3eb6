package check

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/collectors"
	oracol "github.com/writeamp/writeamp/collectors/oracle"
	mscol "github.com/writeamp/writeamp/collectors/sqlserver"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/workloadtest"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// builtinHarness is the built-in check on a dialect that cannot run here:
// its workload's statements (workloadtest), its way into the workload's
// schema (inSchema) and its catalog.
type builtinHarness struct {
	h       workloadtest.Harness
	server  dialects.Server
	set     *collectors.Set
	catalog []string // check_catalog's lines, as the server returns them
	// enter and leave expect inSchema's statements around the migration.
	enter, leave func(mock sqlmock.Sqlmock)
	// snapshot expects one snapshot of set: the workload's own indexes
	// with base writes, and index added with its writes (-1: not there).
	snapshot func(mock sqlmock.Sqlmock, base int64, added string, writes int64)
	budget   string
	// failsOn is the object the budget fails on for an index on the
	// refreshed column ("" for the database).
	failsOn string
}

// run plays a whole built-in check on the mock: the catalog read, the
// before measurement (prepare, snapshot, login/refresh/logout, snapshot,
// cleanup), the after one with the migration applied in the workload's
// schema, and the catalog read again; it returns the outcome.
func (b builtinHarness) run(t *testing.T, migration, added string, writes int64, catalogAfter []string) *Outcome {
	t.Helper()
	db, mock := mocksql.New(t)
	vn, s := b.server.VersionNum, b.server
	const variant = "baseline"
	cat := func(lines []string) {
		rows := sqlmock.NewRows([]string{"line"})
		for _, l := range lines {
			rows.AddRow(l)
		}
		expectBoundedRead(t, mock, s.Dialect, vn, func() {
			mock.ExpectQuery(sqlOf(t, s.Dialect, "check_catalog", vn, "")).WillReturnRows(rows)
		})
	}
	cat(b.catalog)
	survey := func() {
		mock.ExpectQuery(b.h.SQL(t, "owned_list_schemas", vn, variant)).WillReturnRows(sqlmock.NewRows([]string{"name"}))
	}
	// before: the workload's schema as it is
	survey()
	b.h.ExpectPrepare(t, mock, vn, variant)
	b.enter(mock) // with nothing to apply
	b.leave(mock)
	b.snapshot(mock, 100, added, -1)
	b.h.ExpectOps(t, mock, vn, variant)
	b.snapshot(mock, 101, added, -1)
	b.h.ExpectCleanup(t, mock, vn, variant)
	// after: the migration applied inside it, in a window of its own
	// (applycost.go): --schema (nothing here) on Prepare's connection, the
	// before snapshot, the migration on a session of its own, and the two
	// equal readings that end a window of unknown writes (Quiet)
	survey()
	b.h.ExpectPrepare(t, mock, vn, variant)
	b.enter(mock)
	b.leave(mock)
	b.snapshot(mock, 100, added, -1)
	b.enter(mock)
	expectLockTimeout(t, mock, s.Dialect, vn)
	mock.ExpectExec(strings.TrimSuffix(strings.TrimSpace(migration), ";")).WillReturnResult(sqlmock.NewResult(0, 0))
	b.leave(mock)
	b.snapshot(mock, 100, added, 0)
	b.snapshot(mock, 100, added, 0)
	// the workload's window on the migrated schema
	b.snapshot(mock, 100, added, 0)
	b.h.ExpectOps(t, mock, vn, variant)
	b.snapshot(mock, 101, added, writes)
	b.h.ExpectCleanup(t, mock, vn, variant)
	cat(catalogAfter)

	d, _ := dialects.Get(s.Dialect)
	win, err := measure.NewWindow(dialects.Target{DB: db, Dialect: d, Server: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	win.Set = b.set
	bud, err := budget.Parse(b.budget)
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{Window: win, Migration: migrationFile(t, s.Dialect, migration), Budgets: []budget.Budget{bud},
		Mode: &Builtin{Workload: refreshtoken.New(workloadtest.MockParams()), Variant: variant}, runID: workloadtest.RunID}
	out, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SQL Server's built-in check end to end through sqlmock: the
// refresh-token workload in its schema, the migration applied there as the
// workload's user without login (EXECUTE AS … REVERT, the user dropped),
// the index write counters of sys.dm_db_index_operational_stats (and
// sys.indexes) before and after each run, and the catalog read before and
// after the check. An index whose leaf inserts the refresh adds fails the
// budget; the catalog is proven unchanged; a catalog that changed is
// reported (exit 3, ExitNotAsItWas).
func TestBuiltinCheckOnSQLServer(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: ms.Name, Version: "16.0.4135.4", VersionNum: ms.Version2022 + 4135, Database: "kc", User: "wa"}
	s.Set(ms.CapViewDatabaseState, true, "")
	s.Set(ms.CapCheckpoint, false, "no sysadmin, db_owner or db_backupoperator")
	set := mscol.NewSet()
	set.Sources = []collectors.Source{mscol.SysIndexes{}, mscol.SysDmDbIndexOperationalStats{}}
	set.Interval, set.Samplers = nil, nil
	sch := workloadtest.Schema("baseline")
	idxCols := []string{"schema", "table", "index", "object_id", "index_id", "type_desc", "is_unique", "has_filter", "filter_definition", "columns"}
	opCols := []string{"schema", "table", "index", "object_id", "index_id", "partition_number", "partition_id",
		"leaf_insert_count", "leaf_delete_count", "leaf_update_count", "leaf_ghost_count", "leaf_allocation_count", "leaf_page_merge_count",
		"page_latch_wait_count", "page_latch_wait_in_ms", "row_lock_wait_count", "row_lock_wait_in_ms"}
	b := builtinHarness{
		h:      workloadtest.Harness{Dialect: ms.Name, Placeholder: regexp.MustCompile(`@p(\d+)\b`), RememberMe: false},
		server: s, set: set,
		// CONCAT of sysname columns: nvarchar, as TestReadCatalogPerDialect.
		catalog: []string{"schema dbo", "object dbo.REALM type U parent - ", "column dbo.REALM.ID #1 varchar(36,0,0) null 0 identity 0 computed 0"},
		enter: func(mock sqlmock.Sqlmock) {
			mock.ExpectExec(sqlOf(t, ms.Name, "schema_user_create", s.VersionNum, sch)).WillReturnResult(sqlmock.NewResult(0, 0))
			mock.ExpectExec("EXECUTE AS USER = N'" + sch + "'").WillReturnResult(sqlmock.NewResult(0, 0))
		},
		leave: func(mock sqlmock.Sqlmock) {
			mock.ExpectExec("REVERT").WillReturnResult(sqlmock.NewResult(0, 0))
			mock.ExpectExec("DROP USER " + sch).WillReturnResult(sqlmock.NewResult(0, 0))
		},
		budget: "index_entries/op<=+10%", failsOn: "offline_user_session", // the new index is new: its table holds it
		snapshot: func(mock sqlmock.Sqlmock, base int64, added string, writes int64) {
			idx := sqlmock.NewRows(idxCols).
				AddRow(sch, "offline_user_session", "constraint_offl_us_ses_pk2", 101, 1, "CLUSTERED", true, false, nil, "user_session_id, offline_flag").
				AddRow(sch, "offline_user_session", "idx_user_session_expiration_last_refresh", 101, 5, "NONCLUSTERED", false, false, nil, "realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id")
			// NULL partition_id: allowed; counters as bigint.
			op := sqlmock.NewRows(opCols).
				AddRow(sch, "offline_user_session", "constraint_offl_us_ses_pk2", 101, 1, 1, 7001, base, 0, base, 0, 1, 0, 0, 0, 0, 0).
				AddRow(sch, "offline_user_session", "idx_user_session_expiration_last_refresh", 101, 5, 1, nil, base, base-1, 0, 0, 1, 0, 0, 0, 0, 0)
			if writes >= 0 {
				idx.AddRow(sch, "offline_user_session", added, 101, 9, "NONCLUSTERED", false, false, nil, "last_session_refresh")
				op.AddRow(sch, "offline_user_session", added, 101, 9, 1, 7009, writes, 0, 0, 0, 1, 0, 0, 0, 0, 0)
			}
			mock.ExpectBegin()
			mock.ExpectQuery(sqlOf(t, ms.Name, "sys_indexes", s.VersionNum, "")).WillReturnRows(idx)
			mock.ExpectQuery(sqlOf(t, ms.Name, "sys_dm_db_index_operational_stats", s.VersionNum, "")).WillReturnRows(op)
			mock.ExpectRollback()
		},
	}
	b.check(t, "idx_lsr", "idx_uid")
}

// check holds the harness to the two cases and a restore that
// fails: an index on the column the refresh updates fails the budget (exit
// 1), an index the refresh does not write passes (exit 0), each with the
// catalog proven unchanged; a catalog that differs afterwards is reported
// (exit 3, ExitNotAsItWas).
func (b builtinHarness) check(t *testing.T, onUpdated, unrelated string) {
	t.Helper()
	out := b.run(t, "CREATE INDEX "+onUpdated+" ON offline_user_session (last_session_refresh);", onUpdated, 2, b.catalog)
	var failed []string
	for _, v := range out.Verdicts {
		if v.Status == budget.Fail {
			failed = append(failed, v.Object)
		}
	}
	if out.Exit() != 1 || len(failed) != 1 || failed[0] != b.failsOn || out.Restore.Method != restore.MethodWorkload || !out.Restore.OK() || out.Restore.Compared != len(b.catalog) {
		t.Errorf("index on the updated column: exit %d, failed %q, verdicts %+v, restore %+v", out.Exit(), failed, out.Verdicts, out.Restore)
	}
	if len(out.Static) == 0 {
		t.Errorf("no static warning for an index on the column the refresh updates")
	}
	// The apply step was a window of its own, its note in the result.
	if m := out.Result.Migration; m == nil || m.Label != "migration" || !m.Database["seconds"].OK() || !strings.Contains(strings.Join(out.Result.Notes, "\n"), "migration: applying it took") {
		t.Errorf("the built-in mode did not measure the apply step: %+v", out.Result.Migration)
	}
	out = b.run(t, "CREATE INDEX "+unrelated+" ON offline_user_session (user_id, created_on);", unrelated, 0, b.catalog)
	if out.Exit() != 0 || !out.Restore.OK() {
		t.Errorf("unrelated index: exit %d, verdicts %+v, restore %+v", out.Exit(), out.Verdicts, out.Restore)
	}
	left := append([]string{b.catalog[0] + "_left_behind"}, b.catalog[1:]...)
	out = b.run(t, "CREATE INDEX "+unrelated+" ON offline_user_session (user_id, created_on);", unrelated, 0, left)
	if out.Exit() != ExitNotAsItWas || out.Restore.OK() || len(out.Restore.Added) != 1 || len(out.Restore.Removed) != 1 {
		t.Errorf("a catalog that changed: exit %d, restore %+v", out.Exit(), out.Restore)
	}
}

// Oracle's built-in check end to end through sqlmock: the workload's user
// as the current schema for the migration (ALTER SESSION SET
// CURRENT_SCHEMA, then back), the objects of all_objects and the 'db block
// changes' of v$segment_statistics per index (Oracle counts no leaf
// inserts: block changes are the nearest proxy) and of v$sysstat (the
// database's, which the budget judges) in a read-only snapshot, and the
// catalog of the current schema before and after.
func TestBuiltinCheckOnOracle(t *testing.T) {
	t.Parallel()
	s := dialects.Server{Dialect: ora.Name, Version: "19.21.0.0.0", VersionNum: 192100, Database: "FREEPDB1", User: "WA"}
	s.Set(ora.CapStatisticsLevel, true, "")
	s.SetProp(ora.PropStatisticsLevel, "TYPICAL")
	set := oracol.NewSet()
	set.Sources = []collectors.Source{oracol.AllObjects{}, oracol.VSegmentStatistics{}, oracol.VSysstat{}}
	set.Samplers, set.Derive = nil, nil
	sch := workloadtest.Schema("baseline")
	own := strings.ToUpper(sch)
	owners := "," + own + ","
	objCols := []string{"owner", "object_name", "object_type", "table_owner", "table_name", "index_type", "uniqueness", "data_object_id"}
	segCols := []string{"owner", "object_name", "object_type", "subobject_name", "dataobj#", "statistic_name", "value", "table_owner", "table_name", "index_type"}
	b := builtinHarness{
		h:      workloadtest.Harness{Dialect: ora.Name, Placeholder: regexp.MustCompile(`:(\d+)\b`), RememberMe: int64(0)},
		server: s, set: set,
		catalog: []string{"object REALM type TABLE VALID", "column REALM.ID #1 VARCHAR2(36,0,0) null N", "index REALM.CONSTRAINT_4A UNIQUE NORMAL key 1 ID ASC"},
		enter: func(mock sqlmock.Sqlmock) {
			// SYS_CONTEXT returns the schema as the dictionary spells it.
			mock.ExpectQuery("SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA') FROM DUAL").WillReturnRows(sqlmock.NewRows([]string{"SYS_CONTEXT('USERENV','CURRENT_SCHEMA')"}).AddRow("WA"))
			mock.ExpectExec("ALTER SESSION SET CURRENT_SCHEMA = " + sch).WillReturnResult(sqlmock.NewResult(0, 0))
		},
		leave: func(mock sqlmock.Sqlmock) {
			mock.ExpectExec(`ALTER SESSION SET CURRENT_SCHEMA = "WA"`).WillReturnResult(sqlmock.NewResult(0, 0))
		},
		budget: "block_changes/op<=+10%", failsOn: "",
		snapshot: func(mock sqlmock.Sqlmock, base int64, added string, writes int64) {
			const us = "OFFLINE_USER_SESSION"
			objs := sqlmock.NewRows(objCols).
				AddRow(own, us, "TABLE", nil, nil, nil, nil, int64(73001)).
				AddRow(own, "CONSTRAINT_OFFL_US_SES_PK2", "INDEX", own, us, "NORMAL", "UNIQUE", int64(73002)).
				AddRow(own, "IDX_USER_SESSION_EXPIRATION_LAST_REFRESH", "INDEX", own, us, "NORMAL", "NONUNIQUE", int64(73005))
			// NUMBER columns come back as int64; NULL for a table's index columns.
			seg := sqlmock.NewRows(segCols).
				AddRow(own, "CONSTRAINT_OFFL_US_SES_PK2", "INDEX", nil, int64(73002), "db block changes", base, own, us, "NORMAL").
				AddRow(own, "IDX_USER_SESSION_EXPIRATION_LAST_REFRESH", "INDEX", nil, int64(73005), "db block changes", base, own, us, "NORMAL").
				AddRow(own, us, "TABLE", nil, int64(73001), "db block changes", base, nil, nil, nil)
			if writes >= 0 {
				objs.AddRow(own, strings.ToUpper(added), "INDEX", own, us, "NORMAL", "NONUNIQUE", int64(73009))
				seg.AddRow(own, strings.ToUpper(added), "INDEX", nil, int64(73009), "db block changes", writes, own, us, "NORMAL")
			}
			mock.ExpectBegin()
			mock.ExpectExec(sqlOf(t, ora.Name, "snapshot_read_only", s.VersionNum, "")).WillReturnResult(sqlmock.NewResult(0, 0))
			mock.ExpectQuery(sqlOf(t, ora.Name, "all_objects", s.VersionNum, "")).WithArgs(owners, owners).WillReturnRows(objs)
			mock.ExpectQuery(sqlOf(t, ora.Name, "v_segstat_name", s.VersionNum, "")).WillReturnRows(sqlmock.NewRows([]string{"name", "sampled"}).AddRow("db block changes", "YES").AddRow("ITL waits", "NO"))
			mock.ExpectQuery(sqlOf(t, ora.Name, "v_segment_statistics", s.VersionNum, "")).WithArgs(owners, owners).WillReturnRows(seg)
			// The instance's figures: the workload's block changes and the
			// new index's, on top of what the instance did before.
			changes := 500000 + 3*base + max(writes, 0)
			mock.ExpectQuery(sqlOf(t, ora.Name, "v_sysstat", s.VersionNum, "")).WillReturnRows(sqlmock.NewRows([]string{"name", "value"}).
				AddRow("db block changes", changes).AddRow("redo entries", 90000+base).AddRow("redo size", int64(40000000)+base*900))
			mock.ExpectRollback()
		},
	}
	b.check(t, "idx_lsr", "idx_uid")
}
