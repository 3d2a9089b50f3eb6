package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// The InnoDB monitors are server-wide. writeamp turns on the ones it reads
// that are off, for its windows, and records that it did, with the state to
// put back, in writeamp_ledger (a database that exists only while monitors
// writeamp turned on are on). Every measuring run holds a measuring slot lock
// for its window, and a snapshot taken with --enable-monitors leaves a pin
// there until its diff: the last window out restores the monitors and drops
// the ledger, so nobody turns them off under another window, and a run that
// finds the record of a run that is gone (kill -9, a crash) restores them at
// its end and says so. Monitors that were on before writeamp are never
// touched.

const measuringSlots = 32

// takeSlot takes a free measuring slot on conn (-1 when all are taken).
func takeSlot(ctx context.Context, conn *sql.Conn, v int) int {
	for i := range measuringSlots {
		var got sql.NullInt64
		if queries.QueryRow(ctx, conn, Name, "measuring_slot", v, i).Scan(&got) == nil && got.Int64 == 1 {
			return i
		}
	}
	return -1
}

// inUse counts the windows besides this one that rely on the monitors: other
// sessions holding a measuring slot, and snapshots' pins.
func inUse(ctx context.Context, conn *sql.Conn, v, slot int) (slots, pins int, err error) {
	if err := queries.QueryRow(ctx, conn, Name, "measuring_count", v).Scan(&slots); err != nil {
		return 0, 0, err
	}
	if slot >= 0 {
		slots--
	}
	if err := queries.QueryRow(ctx, conn, Name, "ledger_pin_count", v).Scan(&pins); err != nil {
		pins = 0 // no ledger, no pins
	}
	return slots, pins, nil
}

func lockLedger(ctx context.Context, conn *sql.Conn, v int) error {
	var got sql.NullInt64
	if err := queries.QueryRow(ctx, conn, Name, "ledger_lock", v).Scan(&got); err != nil {
		return err
	}
	if got.Int64 != 1 {
		return errors.New("another writeamp run held the ledger lock for 10 s")
	}
	return nil
}

// readLedger returns the record of monitors writeamp turned on, nil when
// there is none (the ledger database does not exist).
func readLedger(ctx context.Context, conn *sql.Conn, v int) (*MonitorRestore, string) {
	var text, created string
	if queries.QueryRow(ctx, conn, Name, "ledger_read", v).Scan(&text, &created) != nil {
		return nil, ""
	}
	var r MonitorRestore
	if json.Unmarshal([]byte(text), &r) != nil {
		return nil, ""
	}
	return &r, created
}

// claim turns on the monitors that are off, or joins the record of monitors
// writeamp already turned on; ours says a record is in force (this window
// must take part in restoring them). The caller holds the ledger lock.
func claim(ctx context.Context, conn *sql.Conn, s *dialects.Server, slot int, ls *ledgerSession) (ours bool, notes []string) {
	v := s.VersionNum
	if rec, created := readLedger(ctx, conn, v); rec != nil {
		s.Set(CapIndexMonitor, true, "")
		s.Set(CapTrxMonitor, true, "")
		if slots, pins, err := inUse(ctx, conn, v, slot); err == nil && slots == 0 && pins == 0 {
			return true, []string{"InnoDB monitors " + strings.Join(rec.Enabled, ", ") + " were left on by a writeamp run that did not finish (" + created + "): this window restores them at its end"}
		}
		return true, []string{"InnoDB monitors " + strings.Join(rec.Enabled, ", ") + " were turned on by another writeamp run still measuring, or a snapshot window still open (" + created + "); the last one restores them"}
	}
	if s.Has(CapIndexMonitor) && s.Has(CapTrxMonitor) {
		return false, nil // on before writeamp: the server's own setting
	}
	r, err := enableMonitors(ctx, conn, s)
	if err != nil {
		return false, enableFailed(s, err)
	}
	s.Set(CapIndexMonitor, true, "")
	s.Set(CapTrxMonitor, true, "")
	if r == nil {
		return false, nil
	}
	host, _ := os.Hostname()
	created := fmt.Sprintf("turned on by writeamp (pid %d on %s) at %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	text, _ := json.Marshal(r)
	b0 := -1.0
	if ls.logged != "" {
		b0 = binlogBytes(ctx, conn, v)
	}
	create, err := queries.Get(Name, "ledger_create", v)
	if err != nil {
		return true, []string{"InnoDB monitors: record them in writeamp_ledger: " + err.Error()}
	}
	for _, stmt := range sqlparse.Statements(create) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return true, []string{"InnoDB monitors: record them in writeamp_ledger: " + err.Error()}
		}
	}
	if _, err := queries.Exec(ctx, conn, Name, "ledger_write", v, string(text), created); err != nil {
		return true, []string{"InnoDB monitors: record them in writeamp_ledger: " + err.Error()}
	}
	notes = []string{"InnoDB monitors " + strings.Join(r.Enabled, ", ") + " were off and are " + created + " for the measured window; the last writeamp window open restores them (recorded in writeamp_ledger until then)"}
	if ls.logged != "" {
		notes = append(notes, ls.loggedNote(b0, binlogBytes(ctx, conn, v)))
	}
	return true, notes
}

// Instrument turns on the monitors writeamp reads for the measured window
// when they are off and this login may, or joins the windows using monitors
// writeamp turned on. The undo, when this is the last window open, turns off
// exactly the counters that were off and puts the innodb_monitor_enable /
// disable variables' text back to NULL where it was NULL.
func (Dialect) Instrument(ctx context.Context, db *sql.DB, s *dialects.Server) (func(context.Context) error, []string) {
	v := s.VersionNum
	if !s.Has(CapInnodbMetrics) {
		return nil, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, []string{"InnoDB monitors: " + err.Error()}
	}
	slot := takeSlot(ctx, conn, v)
	ours := false
	ls := offBinlog(ctx, conn, *s)
	undo := func(ctx context.Context) error {
		defer conn.Close()
		defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "release_all", v)
		defer ls.restore(ctx)
		if !ours {
			return nil
		}
		return restoreIfLast(ctx, conn, s, slot)
	}
	if err := lockLedger(ctx, conn, v); err != nil {
		return undo, []string{"InnoDB monitors: " + err.Error()}
	}
	defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "ledger_unlock", v)
	var notes []string
	ours, notes = claim(ctx, conn, s, slot, ls)
	return undo, notes
}

// pinState is what a snapshot file records of its pin.
type pinState struct {
	Pin string `json:"pin"`
}

// InstrumentState is Instrument for a window between two processes
// (`snapshot --enable-monitors` to `diff`): instead of a session's slot, a
// pin in the ledger keeps the monitors on until RestoreState removes it.
func (Dialect) InstrumentState(ctx context.Context, db *sql.DB, s *dialects.Server) (string, []string) {
	v := s.VersionNum
	if !s.Has(CapInnodbMetrics) {
		return "", nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", []string{"InnoDB monitors: " + err.Error()}
	}
	defer conn.Close()
	ls := offBinlog(ctx, conn, *s)
	defer ls.restore(ctx)
	if err := lockLedger(ctx, conn, v); err != nil {
		return "", []string{"InnoDB monitors: " + err.Error()}
	}
	defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "ledger_unlock", v)
	ours, notes := claim(ctx, conn, s, -1, ls)
	if !ours {
		return "", notes
	}
	b := make([]byte, 8)
	rand.Read(b)
	pin := pinState{Pin: hex.EncodeToString(b)}
	if _, err := queries.Exec(ctx, conn, Name, "ledger_pin_add", v, pin.Pin, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return "", append(notes, "InnoDB monitors: pin them for the window in writeamp_ledger: "+err.Error())
	}
	state, _ := json.Marshal(pin)
	return string(state), notes
}

// RestoreState removes a snapshot's pin and, when no window is open any
// more, restores the monitors.
func (Dialect) RestoreState(ctx context.Context, db *sql.DB, s dialects.Server, state string) error {
	var pin pinState
	if err := json.Unmarshal([]byte(state), &pin); err != nil || pin.Pin == "" {
		return fmt.Errorf("mysql: the recorded InnoDB monitor state is damaged: %q", state)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	ls := offBinlog(ctx, conn, s)
	defer ls.restore(ctx)
	if _, err := queries.Exec(ctx, conn, Name, "ledger_pin_delete", s.VersionNum, pin.Pin); err != nil {
		return fmt.Errorf("mysql: remove this window's pin from writeamp_ledger: %w", err)
	}
	if err := restoreIfLast(ctx, conn, &s, -1); err != nil && !errors.Is(err, dialects.ErrInUse) {
		return err
	}
	return nil
}

// restoreIfLast puts the monitors back as the ledger says when no other
// window is open, and drops the ledger.
func restoreIfLast(ctx context.Context, conn *sql.Conn, s *dialects.Server, slot int) error {
	v := s.VersionNum
	if err := lockLedger(ctx, conn, v); err != nil {
		return fmt.Errorf("mysql: the InnoDB monitors writeamp turned on stay on: %w", err)
	}
	defer queries.Exec(context.WithoutCancel(ctx), conn, Name, "ledger_unlock", v)
	slots, pins, err := inUse(ctx, conn, v, slot)
	if err != nil {
		return fmt.Errorf("mysql: the InnoDB monitors writeamp turned on stay on: %w", err)
	}
	if slots > 0 || pins > 0 {
		return fmt.Errorf("the InnoDB monitors writeamp turned on stay on: %d other run(s) measuring and %d snapshot window(s) restore them when they end: %w", slots, pins, dialects.ErrInUse)
	}
	r, created := readLedger(ctx, conn, v)
	if r == nil {
		return nil // another window restored them already
	}
	if err := RestoreMonitors(ctx, conn, *s, r); err != nil {
		return fmt.Errorf("%w (turned on %s)", err, created)
	}
	if _, err := queries.Exec(ctx, conn, Name, "ledger_drop", v); err != nil {
		return fmt.Errorf("mysql: drop writeamp_ledger: %w", err)
	}
	return nil
}

// Leftovers reports InnoDB monitors writeamp turned on that no window
// restores any more (a run killed before its cleanup, a snapshot never
// diffed), and restores them when asked.
func (Dialect) Leftovers(ctx context.Context, db *sql.DB, s dialects.Server, drop bool) ([]string, error) {
	v := s.VersionNum
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	r, created := readLedger(ctx, conn, v)
	if r == nil {
		return nil, nil
	}
	ls := offBinlog(ctx, conn, s)
	defer ls.restore(ctx)
	what := "InnoDB monitors " + strings.Join(r.Enabled, ", ")
	slots, pins, err := inUse(ctx, conn, v, -1)
	switch {
	case err != nil:
		return nil, err
	case slots > 0:
		return []string{what + " (in use by a run measuring: " + created + ")"}, nil
	case !drop && pins > 0:
		return []string{fmt.Sprintf("%s (%s; kept on for %d snapshot window(s) awaiting their diff: --drop ends them)", what, created, pins)}, nil
	case !drop:
		return []string{what + " (abandoned: " + created + "; the run that turned them on did not finish; writeamp_ledger holds the state to restore)"}, nil
	}
	if _, err := queries.Exec(ctx, conn, Name, "ledger_pin_clear", v); err != nil {
		return nil, err
	}
	if err := restoreIfLast(ctx, conn, &s, -1); err != nil && !errors.Is(err, dialects.ErrInUse) {
		return nil, err
	}
	return []string{what + " (abandoned: " + created + "; restored, writeamp_ledger dropped)"}, nil
}
