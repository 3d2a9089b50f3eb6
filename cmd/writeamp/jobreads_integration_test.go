package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// The expiration job's reads are the server's: on a table this small the
// planner finds the expired sessions by sequential scans, not through the
// expiration index, and the run says so next to the model's rows examined.
// Every deleted session was found by some read: the table's scans plus the
// indexes' entries read cover at least the sessions deleted.
func TestExpirationJobReadsAreTheServers(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--variants", "baseline", "--logins", "100", "--format", "json", "-o", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	us := run.Table("offline_user_session")
	scans, rows := us.Metrics["expiration_job_seq_scans"], us.Metrics["expiration_job_seq_tuples_read"]
	if !scans.OK() || !rows.OK() || !strings.Contains(rows.Source, "pg_stat_user_tables.seq_tup_read") {
		t.Fatalf("the job's sequential reads: %+v %+v", scans, rows)
	}
	read := rows.V()
	for _, ix := range run.Indexes {
		if ix.Table == "offline_user_session" {
			read += ix.Metrics["expiration_job_tuples_read"].V()
		}
	}
	deleted := run.Database["expiration_job_sessions_deleted"].V()
	if deleted != 90 || read < deleted {
		t.Errorf("the job deleted %v sessions (want 90) and read %v rows and index entries of the table", deleted, read)
	}
	said := strings.Contains(strings.Join(run.Warnings, "\n"), "the expiration job read offline_user_session by")
	if said != (scans.V() > 0) {
		t.Errorf("%v sequential scans, warnings %q", scans.V(), run.Warnings)
	}
}
