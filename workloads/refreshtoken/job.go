package refreshtoken

import (
	"fmt"

	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// JobPrefix names the expiration job's figures in a run.
const JobPrefix = "expiration_job_"

// jobWindowMetrics are the figures of the job's window a run gets: its log,
// the rows it deleted, the index entries it removed and read and the rows
// its sequential scans read (where the server counts reads per relation:
// a planner that scans a small table instead of the expiration index
// examines every row), the pages it touched.
var jobWindowMetrics = map[string]string{"log_bytes": result.ExpirationJobLogBytes.Name, "log_records": result.ExpirationJobLogRecords.Name,
	"fpi_count": result.ExpirationJobFpiCount.Name, "fpi_bytes": result.ExpirationJobFpiBytes.Name, "rows_deleted": result.ExpirationJobRowsDeleted.Name,
	"leaf_deletes": result.ExpirationJobLeafDeletes.Name, "pages_touched": result.ExpirationJobPagesTouched.Name,
	"tuples_read": result.ExpirationJobTuplesRead.Name, "seq_scans": result.ExpirationJobSeqScans.Name, "seq_tuples_read": result.ExpirationJobSeqTuplesRead.Name}

// baseVariant is the built-in variant whose schema and statements the
// current one starts from (a variant file names its base).
func (w *Workload) baseVariant() string {
	if v := w.fileVariant(); v != nil {
		return v.Base
	}
	return w.variant
}

// liveAtEnd is every session the table holds when the scenario ends: the
// plan's that did not log out, and the preloaded ones.
func (w *Workload) liveAtEnd() ([]liveSession, int64) {
	live, end := w.ensurePlan().FinalSessions(w.P.bucket)
	return append(append(w.preloadSessions(), w.warmupLive()...), live...), end
}

// Epilogue is the expiration job after the variant's window: every run from
// the scenario's end until the last session has expired.
func (w *Workload) Epilogue() (*workloads.Epilogue, error) {
	if !w.P.ExpirationJob {
		return nil, nil
	}
	jp := w.planJob(w.liveAtEnd())
	ops, err := w.jobOps(jp)
	if err != nil {
		return nil, err
	}
	return &workloads.Epilogue{Prefix: JobPrefix, Ops: ops, Metrics: jobWindowMetrics, Finish: func(run *result.Run, st workloads.Stats) {
		w.jobFigures(run, st, jp)
	}}, nil
}

// jobFigures are the job's counts from its model and its driver, and its
// log per run and per expired session.
func (w *Workload) jobFigures(run *result.Run, st workloads.Stats, jp jobPlan) {
	put := func(name string, m result.Metric) { run.Database[name] = m }
	sched := fmt.Sprintf("the expiration job's schedule: every %s of simulated time from the scenario's end until no session is left", w.P.ExpirationInterval)
	if jp.skipped > 0 {
		sched += fmt.Sprintf("; the runs issued: runs left out %d (only offline sessions were left and none was past the offline cut-off: their finds return nothing and write no log)", jp.skipped)
	}
	put(result.ExpirationJobRuns.Name, result.New(float64(jp.runs), result.Exact, sched))
	put(result.ExpirationJobBatches.Name, result.New(float64(st.Operations["expiration_batches"]), result.Exact, "the driver: find-and-delete transactions committed"))
	deleted := st.Statements["rt_expire_delete_user_sessions"]
	put(result.ExpirationJobSessionsDeleted.Name, result.New(float64(deleted), result.Exact, "the driver: rows deleteUserSessions deleted"))
	examined := 0
	for _, b := range jp.batches {
		examined += b.examined
	}
	src := "the schedule: live rows in each find's index range (26.7: LAST_SESSION_REFRESH / CREATED_ON below the cut-off; 26.8: LAST_SESSION_REFRESH_COARSE below it, before the exact check), summed over the finds"
	put(result.ExpirationJobRowsExamined.Name, result.New(float64(examined), result.Derived, src))
	put(result.ExpirationJobMs.Name, result.New(float64(st.Elapsed.Milliseconds()), result.Exact, "the driver's wall clock over the job's transactions"))
	if int64(jp.deleted) != deleted {
		run.Warnings = append(run.Warnings, fmt.Sprintf("the expiration job's model expected %d sessions deleted, the driver deleted %d", jp.deleted, deleted))
	}
	if lb, ok := run.Database[JobPrefix+"log_bytes"]; ok && lb.OK() {
		if jp.runs > 0 {
			src := JobPrefix + "log_bytes / " + JobPrefix + "runs"
			if jp.skipped > 0 {
				src += " (the runs issued; those left out had nothing to delete)"
			}
			put(result.ExpirationJobLogBytesPerRun.Name, result.New(lb.V()/float64(jp.runs), result.Weaker(result.Derived, lb.Exactness), src))
		}
		if deleted > 0 {
			put(result.ExpirationJobLogBytesPerSession.Name, result.New(lb.V()/float64(deleted), result.Weaker(result.Derived, lb.Exactness), JobPrefix+"log_bytes / "+JobPrefix+"sessions_deleted"))
		}
	}
	if deleted > 0 {
		put(result.ExpirationJobMsPerSession.Name, result.New(float64(st.Elapsed.Microseconds())/1000/float64(deleted), result.Derived, JobPrefix+"ms / "+JobPrefix+"sessions_deleted"))
	}
	seqScanned(run, examined)
}

// seqScanned says when the job's finds read the session table by
// sequential scans (the server's counters): the rows examined are then the
// table's, not the index ranges the model counts, which is what the
// planner chooses when a find's range covers much of the table.
func seqScanned(run *result.Run, modelled int) {
	us := run.Table(userSessions)
	if us == nil {
		return
	}
	scans, rows := us.Metrics[result.ExpirationJobSeqScans.Name], us.Metrics[result.ExpirationJobSeqTuplesRead.Name]
	if !scans.OK() || scans.V() == 0 || !rows.OK() {
		return
	}
	run.Warnings = append(run.Warnings, fmt.Sprintf("the expiration job read %s by %.0f sequential scans, %.0f rows (%s), where the model counts %d rows examined in the expiration indexes' ranges: the planner scanned the table instead, so the job's reads grow with the table, not with the expired sessions",
		userSessions, scans.V(), rows.V(), rows.Source, modelled))
}

// PlanSessionID is login i's session id (the mock tests expect it).
func (w *Workload) PlanSessionID(i int) string { return w.ensurePlan().sessionID(i) }
