package oracle

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VArchivedLog marks, on a primary, the control file's highest archived log
// record (RECID): ArchivedLogShipped reads the records added between two
// marks. Oracle keeps no byte counter per destination; the records of the
// logs archived to each are the nearest thing it keeps.
type VArchivedLog struct{}

// markRecid holds the highest RECID, or "error: ..." when unreadable.
const markRecid = "oracle_archived_log_recid"

func (VArchivedLog) Name() string { return "v_archived_log" }

func (VArchivedLog) Supports(s dialects.Server) error {
	return primaryOnly(s, "V$ARCHIVED_LOG: the logs a primary archived to each destination")
}

// Marks never fails the snapshot: what cannot be read is recorded, and the
// interval collector says so.
func (VArchivedLog) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	var recid int64
	if err := queries.QueryRow(ctx, qr, ora.Name, "v_archived_log_recid", s.VersionNum).Scan(&recid); err != nil {
		return map[string]string{markRecid: "error: " + ora.AsPrivilegeError(err, s, "v_$archived_log").Error()}, nil
	}
	return map[string]string{markRecid: strconv.FormatInt(recid, 10)}, nil
}

func recidMark(snap *collectors.Snapshot) (int64, error) {
	v, ok := snap.Marks[markRecid]
	if !ok {
		return 0, errors.New("V$ARCHIVED_LOG was not marked in this snapshot")
	}
	if e, bad := strings.CutPrefix(v, "error: "); bad {
		return 0, errors.New(e)
	}
	return strconv.ParseInt(v, 10, 64)
}

// markFailure is a mark that could not be read, as a typed error: the mark
// keeps only text, so the view is asked again, and a refusal comes back as
// the privilege error that names its grant rather than as its words.
func markFailure(ctx context.Context, qr dialects.Querier, s dialects.Server, block, grant, what string, markErr error) error {
	rows, err := queries.Query(ctx, qr, ora.Name, block, s.VersionNum)
	if err == nil {
		rows.Close()
		return fmt.Errorf("%s: %w", what, markErr)
	}
	return fmt.Errorf("%s: %w", what, ora.AsPrivilegeError(err, s, grant))
}

// primaryOnly refuses a server that is no primary with its typed reason (a
// standby's is of kind Role), and one whose role the probe could not tell.
func primaryOnly(s dialects.Server, what string) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if s.Has(ora.CapPrimary) {
		return nil
	}
	if _, probed := s.Caps[ora.CapPrimary]; !probed {
		return &dialects.Unavailable{Reason: dialects.Reason{Kind: dialects.Unreadable, Text: what + ": the probe did not read the database's Data Guard role"}}
	}
	return s.Unsupported(ora.CapPrimary, what)
}

// ArchivedLogShipped is, per archive destination, what V$ARCHIVED_LOG
// recorded as archived there in the window: for each standby its logs'
// bytes (replica.<dest>.log_bytes_sent), for the local archive the number of
// log files copied (wal_segments_archived, as pg_stat_archiver's).
type ArchivedLogShipped struct{}

func (ArchivedLogShipped) Name() string { return "archived_log_shipped" }

func (ArchivedLogShipped) Supports(s dialects.Server) error {
	return primaryOnly(s, "V$ARCHIVED_LOG: the logs a primary archived to each destination")
}

// wholeLogs is why the shipped bytes are derived, not exact: redo transport
// sends redo as it is written, but the control file records a log only once
// it is archived, whole.
const wholeLogs = "whole logs archived in the window: the redo of the log still being written at the window's end is in no record yet, and the first log archived holds redo written before the window"

type destLogs struct{ logs, bytes int64 }

func (ArchivedLogShipped) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	from, err := recidMark(before)
	if err != nil {
		return nil, markFailure(ctx, qr, s, "v_archived_log_recid", "v_$archived_log", "V$ARCHIVED_LOG at the window's start", err)
	}
	to, err := recidMark(after)
	if err != nil {
		return nil, markFailure(ctx, qr, s, "v_archived_log_recid", "v_$archived_log", "V$ARCHIVED_LOG at the window's end", err)
	}
	if to < from {
		return nil, fmt.Errorf("the control file's highest archived log RECID went down in the window (%d to %d): a control file recreated or restored, so which logs the window archived is not known", from, to)
	}
	dests, derr := destMarks(after)
	if derr != "" {
		return nil, markFailure(ctx, qr, s, "v_archive_dest_status", "v_$archive_dest_status", "V$ARCHIVE_DEST_STATUS at the window's end", errors.New(derr))
	}
	if len(dests) == 0 {
		return nil, nil // no archive destination: nothing is archived or shipped
	}
	// A start whose destinations could not be read tells nothing of which
	// were configured inside the window.
	had, herr := destMarks(before)
	logs := map[int64]destLogs{}
	if to > from {
		rows, err := queries.Query(ctx, qr, ora.Name, "v_archived_log_window", s.VersionNum, from, to)
		if err != nil {
			return nil, ora.AsPrivilegeError(err, s, "v_$archived_log")
		}
		defer rows.Close()
		for rows.Next() {
			var id, n int64
			var bytes sql.NullInt64
			if err := rows.Scan(&id, &n, &bytes); err != nil {
				return nil, err
			}
			logs[id] = destLogs{n, bytes.Int64}
			if _, known := dests[id]; !known && id > 0 {
				// Archived in the window to a destination gone by its end.
				dests[id] = archiveDest{id: id}
			}
		}
		if err := rows.Err(); err != nil {
			return nil, ora.AsPrivilegeError(err, s, "v_$archived_log")
		}
	}
	scope := ""
	if ora.InPDB(s) {
		scope = "; redo is the CDB's: every PDB's work is in it"
	}
	var out []collectors.Counter
	var sent, archived, archivedBytes float64
	sentOK, remotes, valid, locals := true, 0, 0, 0
	for _, d := range sortedDests(dests) {
		got := logs[d.id]
		if d.local {
			locals++
			archived += float64(got.logs)
			archivedBytes += float64(got.bytes)
			continue
		}
		remotes++
		if d.valid {
			valid++
		}
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(result.ReplicaPrefix+d.replica()+".log_bytes_sent")), Interval: true}
		var notes []string
		switch {
		case !d.seen:
			notes = append(notes, fmt.Sprintf("DEST_ID %d is no destination at the window's end", d.id))
		case d.status != "VALID":
			notes = append(notes, "the destination's status at the window's end is "+d.status)
		}
		if b, ok := had[d.id]; d.seen && herr == "" && (!ok || b.name != d.name) {
			notes = append(notes, "the destination was configured during the window")
		}
		if got.logs == 0 {
			c.Exactness, c.Source = result.Unavailable, "V$ARCHIVED_LOG (DEST_ID "+strconv.FormatInt(d.id, 10)+")"
			notes = append([]string{"no log was archived to this destination in the window: what was sent to it since the last log switch is in the log still being written, which V$ARCHIVED_LOG lists only once archived"}, notes...)
			sentOK = false
		} else {
			c.Value, c.Exactness = float64(got.bytes), result.Derived
			c.Source = fmt.Sprintf("derived: V$ARCHIVED_LOG BLOCKS × BLOCK_SIZE of the %d log(s) archived to DEST_ID %d (%s) in the window%s", got.logs, d.id, d.typ, scope)
			notes = append([]string{wholeLogs}, notes...)
			sent += c.Value
		}
		c.Note = strings.Join(notes, "; ")
		out = append(out, c)
	}
	if remotes > 0 {
		out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Replicas), Value: float64(valid), Exactness: result.Exact, Interval: true,
			Source: "V$ARCHIVE_DEST_STATUS: remote destinations VALID at the window's end"})
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.ReplicasLogBytesSent), Value: sent, Exactness: result.Derived, Interval: true, Note: wholeLogs,
			Source: "derived: sum over the remote destinations of V$ARCHIVED_LOG BLOCKS × BLOCK_SIZE archived in the window" + scope}
		if !sentOK {
			c.Value, c.Exactness, c.Note = 0, result.Unavailable, "a destination's bytes are unavailable"
		}
		out = append(out, c)
	}
	if locals > 0 {
		out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.WalSegmentsArchived), Value: archived, Exactness: result.Exact, Interval: true,
			Source: "V$ARCHIVED_LOG records added in the window for the local destinations (archived redo log files; each local copy counts)" + scope,
			Note:   fmt.Sprintf("%.0f bytes of redo log archived locally", archivedBytes)})
	}
	return out, nil
}
