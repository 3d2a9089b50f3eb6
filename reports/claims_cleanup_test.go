package reports

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// The two-pass cleanup rows: one "not measured" row without the job's
// figures; with them, per expired session, held when coarse costs more
// beyond noise and not held when it costs the same.
func TestCleanupClaims(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	if cl := claimOf(t, r, "cleanup"); cl.Verdict != result.NotMeasured || !strings.Contains(cl.Why, "--expiration-job") {
		t.Errorf("without the job: %+v", cl)
	}
	job := func(label string, logBytes, batches float64) {
		db := runOf(r, label).Database
		set(db, "expiration_job_sessions_deleted", 270, result.Exact)
		set(db, "expiration_job_log_bytes", logBytes, result.Exact)
		set(db, "expiration_job_batches", batches, result.Exact)
		set(db, "expiration_job_rows_examined", 270, result.Derived)
	}
	job("baseline c=1", 353568, 6)
	job("coarse c=1", 540000, 384)
	if hasClaim(r, "cleanup") {
		t.Error("with the job's figures the single not-measured row must go")
	}
	lb := claimOf(t, r, "cleanup.log_bytes")
	if lb.Verdict != result.Held || lb.Before == nil || *lb.Before != 353568.0/270 || *lb.After != 2000 || lb.Exactness != result.Derived {
		t.Errorf("log bytes: %+v", lb)
	}
	if cl := claimOf(t, r, "cleanup.batches"); cl.Verdict != result.Held || !strings.Contains(cl.Measured, "per expired session") {
		t.Errorf("batches: %+v", cl)
	}
	if cl := claimOf(t, r, "cleanup.rows_examined"); cl.Verdict != result.NotHeld {
		t.Errorf("the same rows examined is no extra cost: %+v", cl)
	}
}
