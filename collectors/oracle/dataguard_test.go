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

// Fixtures are typed as go-ora v2.8 hands them to database/sql: NUMBER as
// its decimal string (Number.String), VARCHAR2 as string, NULL as nil.

func destRows() *sqlmock.Rows {
	return sqlmock.NewRows([]string{"dest_id", "dest_name", "status", "type"})
}

// primaryMarks reads the two archive markers as a snapshot does.
func primaryMarks(t *testing.T, recid string, dests *sqlmock.Rows) map[string]string {
	t.Helper()
	s := server()
	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "v_archived_log_recid", s)).WillReturnRows(sqlmock.NewRows([]string{"NVL(MAX(RECID),0)"}).AddRow(recid))
	mock.ExpectQuery(text(t, "v_archive_dest_status", s)).WillReturnRows(dests)
	marks := map[string]string{}
	for _, m := range []collectors.Marker{VArchivedLog{}, VArchiveDestStatus{}} {
		got, err := m.Marks(ctx(), db, s)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range got {
			marks[k] = v
		}
	}
	return marks
}

func threeDests() *sqlmock.Rows {
	return destRows().
		AddRow("1", "LOG_ARCHIVE_DEST_1", "VALID", "LOCAL").
		AddRow("2", "LOG_ARCHIVE_DEST_2", "VALID", "PHYSICAL").
		AddRow("3", "LOG_ARCHIVE_DEST_3", "ERROR", "PHYSICAL")
}

var windowCols = []string{"dest_id", "count", "bytes"}

// runShipped runs the interval collector as a window does (its own read-only
// transaction) and returns the delta's values.
func runShipped(t *testing.T, before, after map[string]string, expect func(sqlmock.Sqlmock)) *collectors.Delta {
	t.Helper()
	s := server()
	db, mock := mocksql.New(t)
	mock.ExpectBegin()
	mock.ExpectExec(text(t, "snapshot_read_only", s)).WillReturnResult(sqlmock.NewResult(0, 0))
	expect(mock)
	mock.ExpectRollback()
	set := &collectors.Set{Interval: []collectors.IntervalCollector{ArchivedLogShipped{}}, SnapshotTx: snapshotTx}
	d := &collectors.Delta{Server: s, Before: &collectors.Snapshot{Server: s, Marks: before}, After: &collectors.Snapshot{Server: s, Marks: after}, Values: map[collectors.Key]result.Metric{}}
	set.RunInterval(ctx(), db, d)
	return d
}

func dbKey(name string) collectors.Key { return collectors.Key{Level: collectors.DB, Metric: name} }

// TestArchivedLogShippedPerDestination: the standby that got two whole logs
// in the window is sent their bytes (derived, saying why); the one that got
// none is unavailable, never 0, and so is the sum; only VALID standbys count
// as connected; the local archive's log files are counted exactly.
func TestArchivedLogShippedPerDestination(t *testing.T) {
	before := primaryMarks(t, "100", threeDests())
	after := primaryMarks(t, "106", threeDests())
	if before[markRecid] != "100" || !strings.HasPrefix(after[markDest+"2"], "PHYSICAL\tVALID\t") {
		t.Fatalf("marks = %v", after)
	}
	d := runShipped(t, before, after, func(mock sqlmock.Sqlmock) {
		mock.ExpectQuery(text(t, "v_archived_log_window", server())).WithArgs(int64(100), int64(106)).
			WillReturnRows(sqlmock.NewRows(windowCols).AddRow("1", "2", "104857600").AddRow("2", "2", "104857600"))
	})
	if len(d.Missing) != 0 {
		t.Fatalf("missing = %+v", d.Missing)
	}
	sent := d.Values[dbKey("replica.log_archive_dest_2.log_bytes_sent")]
	if sent.V() != 104857600 || sent.Exactness != result.Derived || !strings.Contains(sent.Source, "BLOCKS × BLOCK_SIZE of the 2 log(s)") ||
		!strings.Contains(sent.Note, "log still being written") {
		t.Errorf("dest 2 = %+v", sent)
	}
	none := d.Values[dbKey("replica.log_archive_dest_3.log_bytes_sent")]
	if none.OK() || none.Value != nil || !strings.Contains(none.Note, "no log was archived to this destination") || !strings.Contains(none.Note, "status at the window's end is ERROR") {
		t.Errorf("dest 3 must be unavailable, not 0: %+v", none)
	}
	if m := d.Values[dbKey("replicas")]; m.V() != 1 || m.Exactness != result.Exact {
		t.Errorf("replicas = %+v", m)
	}
	if m := d.Values[dbKey("replicas_log_bytes_sent")]; m.OK() || m.Value != nil {
		t.Errorf("a sum over an unavailable destination is unavailable: %+v", m)
	}
	if m := d.Values[dbKey("wal_segments_archived")]; m.V() != 2 || m.Exactness != result.Exact || !strings.Contains(m.Note, "104857600 bytes") {
		t.Errorf("archived = %+v", m)
	}
	if _, ok := result.Lookup("replica.log_archive_dest_2.log_bytes_sent"); !ok {
		t.Error("the shipped bytes are a catalogue family name")
	}
}

// TestArchivedLogShippedWithoutASwitch: no record added (no log switch in
// the window) reads nothing: the standby's bytes are unavailable, the local
// archive copied exactly none.
func TestArchivedLogShippedWithoutASwitch(t *testing.T) {
	two := func() *sqlmock.Rows {
		return destRows().AddRow("1", "LOG_ARCHIVE_DEST_1", "VALID", "LOCAL").AddRow("2", "LOG_ARCHIVE_DEST_2", "VALID", "PHYSICAL")
	}
	before, after := primaryMarks(t, "100", two()), primaryMarks(t, "100", two())
	d := runShipped(t, before, after, func(sqlmock.Sqlmock) {})
	if m := d.Values[dbKey("replica.log_archive_dest_2.log_bytes_sent")]; m.OK() || m.Value != nil {
		t.Errorf("no switch, no figure: %+v", m)
	}
	if m := d.Values[dbKey("wal_segments_archived")]; m.V() != 0 || !m.OK() {
		t.Errorf("no log archived locally is a count of 0: %+v", m)
	}
}

// TestArchivedLogShippedRefusesWhatItCannotTell: a RECID that went down, a
// destination list that could not be read: missing with the reason, never
// numbers; the privilege error names the grant.
func TestArchivedLogShippedRefusesWhatItCannotTell(t *testing.T) {
	before, after := primaryMarks(t, "100", threeDests()), primaryMarks(t, "90", threeDests())
	d := runShipped(t, before, after, func(sqlmock.Sqlmock) {})
	if len(d.Missing) != 1 || !strings.Contains(d.Missing[0].Reason, "RECID went down") || len(d.Values) != 0 {
		t.Errorf("missing %+v values %v", d.Missing, d.Values)
	}

	s := server()
	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "v_archive_dest_status", s)).WillReturnError(ora942)
	marks, err := VArchiveDestStatus{}.Marks(ctx(), db, s)
	if err != nil || !strings.Contains(marks[markDest], "GRANT SELECT ON sys.v_$archive_dest_status") {
		t.Fatalf("a marker never fails the snapshot and says the grant: %v %v", marks, err)
	}
	// The mark keeps text only: the view is asked again, so the refusal is
	// typed (kind privilege, its grant as the fix), not parsed from words.
	marks[markRecid] = "120"
	d = runShipped(t, before, marks, func(mock sqlmock.Sqlmock) {
		mock.ExpectQuery(text(t, "v_archive_dest_status", s)).WillReturnError(ora942)
	})
	if len(d.Missing) != 1 || d.Missing[0].Kind != string(dialects.Privilege) || !strings.Contains(d.Missing[0].Fix, "GRANT SELECT ON sys.v_$archive_dest_status") {
		t.Errorf("missing = %+v", d.Missing)
	}
}

// TestPrimaryOnlySourcesOnAStandby: a standby's refusal is typed (Role), one
// whose role was never probed says so (Unreadable); 11.2 is a version gap.
func TestPrimaryOnlySourcesOnAStandby(t *testing.T) {
	sby := standbyServer()
	unknown := server()
	delete(unknown.Caps, ora.CapPrimary)
	for _, src := range []collectors.Source{VArchivedLog{}, VArchiveDestStatus{}, ArchivedLogShipped{}} {
		err := src.Supports(sby)
		if r := dialects.ReasonOf(err); !errors.Is(err, dialects.ErrUnsupported) || r.Kind != dialects.Role || !strings.Contains(r.Text, "physical standby") {
			t.Errorf("%s on a standby: %v (%+v)", src.Name(), err, r)
		}
		if r := dialects.ReasonOf(src.Supports(unknown)); r.Kind != dialects.Unreadable {
			t.Errorf("%s with no role probed: %+v", src.Name(), r)
		}
		if err := src.Supports(oracle11); !errors.Is(err, dialects.ErrUnsupported) {
			t.Errorf("%s on 11.2: %v", src.Name(), err)
		}
	}
}

// standbyServer is a 19c physical standby as the probe leaves it.
func standbyServer() dialects.Server {
	s := server()
	delete(s.Caps, ora.CapPrimary)
	delete(s.Caps, ora.CapWriteCounters)
	s.Set(ora.CapStandby, true, "")
	s.SetProp(ora.PropDBUniqueName, "boston_sby")
	s.Deny(ora.CapPrimary, dialects.Reason{Kind: dialects.Role, Text: "the database is a physical standby (DATABASE_ROLE PHYSICAL STANDBY): it ships no redo"})
	s.Deny(ora.CapWriteCounters, dialects.Reason{Kind: dialects.Role, Text: "the database is a physical standby (DATABASE_ROLE PHYSICAL STANDBY): media recovery is not counted"})
	return s
}

var recoveryCols = []string{"start_time", "units", "sofar"}

func readApplied(t *testing.T, s dialects.Server, rows *sqlmock.Rows) ([]collectors.Counter, error) {
	t.Helper()
	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "v_recovery_progress", s)).WillReturnRows(rows)
	return VRecoveryProgress{}.Collect(ctx(), db, s, collectors.Scope{})
}

// TestRedoApplied: the standby's applied redo is the difference of two
// 'Redo Applied' readings (Megabytes: approx); a recovery restarted inside
// the window is a reset; Redo Apply stopped, or another unit, is a typed
// reason with what it lacks; a primary reads nothing.
func TestRedoApplied(t *testing.T) {
	s := standbyServer()
	read := func(start, mb string) []collectors.Counter {
		cs, err := readApplied(t, s, sqlmock.NewRows(recoveryCols).AddRow(start, "Megabytes", mb).AddRow("2025-12-30 08:00:00", "Megabytes", "99999"))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := dbKey("replayed_log_bytes")
	d, _ := collectors.Diff(snap(s, read("2026-01-02 03:05:00", "1200")), snap(s, read("2026-01-02 03:05:00", "1262")))
	if m := d.Values[k]; m.V() != 62*1048576 || m.Exactness != result.Approx || !strings.Contains(m.Source, "'Redo Applied'") {
		t.Errorf("applied = %+v", m)
	}
	d, _ = collectors.Diff(snap(s, read("2026-01-02 03:05:00", "1200")), snap(s, read("2026-01-02 04:00:00", "1300")))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Errorf("a restarted recovery is a reset: %+v", m)
	}

	_, err := readApplied(t, s, sqlmock.NewRows(recoveryCols))
	var un *dialects.Unavailable
	if !errors.As(err, &un) || un.Kind != dialects.Setting || !strings.Contains(un.Fix, "RECOVER MANAGED STANDBY DATABASE") || !slicesHas(un.Lacks, "replayed_log_bytes") {
		t.Errorf("Redo Apply stopped: %v", err)
	}
	_, err = readApplied(t, s, sqlmock.NewRows(recoveryCols).AddRow("2026-01-02 03:05:00", "KB/sec", "55082"))
	if r := dialects.ReasonOf(err); r.Kind != dialects.Unreadable || !strings.Contains(r.Text, "KB/sec") {
		t.Errorf("another unit: %+v", r)
	}
	db, _ := mocksql.New(t)
	if cs, err := (VRecoveryProgress{}).Collect(ctx(), db, server(), collectors.Scope{}); cs != nil || err != nil {
		t.Errorf("a primary reads nothing: %v %v", cs, err)
	}
}

func slicesHas(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// TestDeriveStandbyNeverAFalseZero: on a physical standby the segment and
// system statistics the diff read as 0 become unavailable with the probe's
// reason, listed missing by kind and metric; log_bytes is the redo applied.
func TestDeriveStandbyNeverAFalseZero(t *testing.T) {
	s := standbyServer()
	ix := collectors.Object{Level: collectors.Index, Schema: own, Name: "IDX_USER_SESSION_EXPIRATION_LAST_REFRESH", Table: "OFFLINE_USER_SESSION"}
	tb := collectors.Object{Level: collectors.Table, Schema: own, Name: "OFFLINE_USER_SESSION"}
	d := &collectors.Delta{Server: s, Objects: []collectors.Object{tb, ix}, Values: map[collectors.Key]result.Metric{
		collectors.NewKey(collectors.Index, ix.FQN(), result.BlockChanges):         result.New(0, result.Approx, "V$SEGMENT_STATISTICS 'db block changes'"),
		collectors.NewKey(collectors.DB, "", result.BlockChanges):                  result.New(0, result.Exact, "V$SYSSTAT 'db block changes'"),
		collectors.NewKey(collectors.DB, "", result.LogBytes):                      result.New(512, result.Exact, "V$SYSSTAT 'redo size'"),
		collectors.NewKey(collectors.DB, "", result.ReplayedLogBytes):              result.New(62*1048576, result.Approx, "V$RECOVERY_PROGRESS 'Redo Applied' difference"),
		collectors.NewKey(collectors.DB, "", result.Family("waits.log_file_sync")): result.New(3, result.Exact, "V$SYSTEM_EVENT"),
	}}
	NewSet().Derive[0](d)
	for _, k := range []collectors.Key{collectors.NewKey(collectors.Index, ix.FQN(), result.BlockChanges), collectors.NewKey(collectors.Table, tb.FQN(), result.PhysicalWrites),
		collectors.NewKey(collectors.DB, "", result.BlockChanges), collectors.NewKey(collectors.DB, "", result.LogRecords)} {
		if m := d.Values[k]; m.OK() || m.Value != nil || !strings.Contains(m.Note, "media recovery is not counted") {
			t.Errorf("%s = %+v", k, m)
		}
	}
	if m := d.Values[collectors.NewKey(collectors.DB, "", result.LogBytes)]; m.V() != 62*1048576 || m.Exactness != result.Approx {
		t.Errorf("a standby's log_bytes is the redo it applied: %+v", m)
	}
	if m := d.Values[collectors.NewKey(collectors.DB, "", result.Family("waits.log_file_sync"))]; !m.OK() {
		t.Errorf("the standby's own waits stay: %+v", m)
	}
	var seg *collectors.Missing
	for i, m := range d.Missing {
		if m.Collector == "v_segment_statistics" {
			seg = &d.Missing[i]
		}
	}
	if seg == nil || seg.Kind != string(dialects.Role) || !seg.Lacking(result.BlockChanges) || len(d.Missing) != 2 {
		t.Errorf("missing = %+v", d.Missing)
	}

	p := &collectors.Delta{Server: server(), Values: map[collectors.Key]result.Metric{collectors.NewKey(collectors.DB, "", result.LogBytes): result.New(512, result.Exact, "V$SYSSTAT")}}
	DeriveStandby(p)
	if m := p.Values[collectors.NewKey(collectors.DB, "", result.LogBytes)]; m.V() != 512 || len(p.Missing) != 0 {
		t.Errorf("a primary is left alone: %+v %+v", m, p.Missing)
	}
}
