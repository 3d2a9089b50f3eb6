package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// The InnoDB module_index monitors are server-wide. writeamp turns them on
// for its windows when they are off, and records that it did, with the state
// to put back, in writeamp_ledger.monitors (a database that exists only
// while such monitors are on). Every measuring run holds a measuring slot
// lock: the last run out restores the monitors and drops the ledger, so a
// run never turns them off under another run's window, and a run that finds
// the record of a run that is gone (kill -9, a crash) restores them at its
// end and says so. Monitors that were on before writeamp are never touched.

// prior is the monitors' state before writeamp turned them on.
type prior struct {
	AllOff         bool     `json:"all_off"`
	WereOff        []string `json:"were_off"`
	EnableVarNull  bool     `json:"enable_var_null"`
	DisableVarNull bool     `json:"disable_var_null"`
}

const measuringSlots = 32

func mq(name string, v int) string { return queries.MustGet(Name, name, v) }

// takeSlot takes a free measuring slot on conn (-1 when all are taken).
func takeSlot(ctx context.Context, conn *sql.Conn, v int) int {
	for i := range measuringSlots {
		var got sql.NullInt64
		if conn.QueryRowContext(ctx, mq("measuring_slot", v), i).Scan(&got) == nil && got.Int64 == 1 {
			return i
		}
	}
	return -1
}

// othersMeasuring counts the other sessions holding a measuring slot.
func othersMeasuring(ctx context.Context, conn *sql.Conn, v, slot int) (int, error) {
	var n int
	if err := conn.QueryRowContext(ctx, mq("measuring_count", v)).Scan(&n); err != nil {
		return 0, err
	}
	if slot >= 0 {
		n--
	}
	return n, nil
}

func lockLedger(ctx context.Context, conn *sql.Conn, v int) error {
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, mq("ledger_lock", v)).Scan(&got); err != nil {
		return err
	}
	if got.Int64 != 1 {
		return errors.New("another writeamp run held the ledger lock for 10 s")
	}
	return nil
}

// readLedger returns the record of monitors writeamp turned on, nil when
// there is none (the ledger database does not exist).
func readLedger(ctx context.Context, conn *sql.Conn, v int) (*prior, string) {
	var text, created string
	if conn.QueryRowContext(ctx, mq("ledger_read", v)).Scan(&text, &created) != nil {
		return nil, ""
	}
	var p prior
	if json.Unmarshal([]byte(text), &p) != nil {
		return nil, ""
	}
	return &p, created
}

// Instrument turns on the InnoDB module_index monitors (page splits and
// merges) for the measured window when they are off and this login may,
// recording the state to put back; or joins the runs using monitors writeamp
// turned on. The undo, when this is the last measuring run, turns off exactly
// the counters that were off (the whole module when all were) and puts the
// innodb_monitor_enable/disable variables' text back to NULL when it was
// NULL; a non-NULL old text is left as it is, since re-setting it would
// re-run the old command.
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
	ours := false // writeamp's record of monitors it turned on is in force
	undo := func(ctx context.Context) error {
		defer conn.Close()
		defer conn.ExecContext(context.WithoutCancel(ctx), mq("release_all", v))
		if !ours {
			return nil
		}
		return restoreIfLast(ctx, conn, s, slot)
	}
	if err := lockLedger(ctx, conn, v); err != nil {
		return undo, []string{"InnoDB monitors: " + err.Error()}
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), mq("ledger_unlock", v))
	if rec, created := readLedger(ctx, conn, v); rec != nil {
		ours = true
		s.Set(CapIndexMonitor, true, "")
		if n, err := othersMeasuring(ctx, conn, v, slot); err == nil && n == 0 {
			return undo, []string{"the InnoDB monitor module_index was left on by a writeamp run that did not finish (" + created + "): this run restores it at the end"}
		}
		return undo, []string{"the InnoDB monitor module_index was turned on by another writeamp run still measuring (" + created + "); the last run restores it"}
	}
	if s.Has(CapIndexMonitor) {
		return undo, nil // on before writeamp: the server's own setting
	}
	p, warn := enableMonitors(ctx, conn, s)
	if p == nil {
		return undo, warn
	}
	ours = true
	host, _ := os.Hostname()
	created := fmt.Sprintf("turned on by writeamp (pid %d on %s) at %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	text, _ := json.Marshal(p)
	for _, stmt := range dialects.Statements(mq("ledger_create", v)) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return undo, []string{"InnoDB monitors: record them in writeamp_ledger: " + err.Error()}
		}
	}
	if _, err := conn.ExecContext(ctx, mq("ledger_write", v), string(text), created); err != nil {
		return undo, []string{"InnoDB monitors: record them in writeamp_ledger: " + err.Error()}
	}
	return undo, []string{"InnoDB monitor module_index (page splits/merges) was " + created + " for the measurement; the last writeamp run measuring restores it (recorded in writeamp_ledger until then)"}
}

// enableMonitors turns module_index on and returns the state to restore.
func enableMonitors(ctx context.Context, conn *sql.Conn, s *dialects.Server) (*prior, []string) {
	v := s.VersionNum
	before, err := monitorState(ctx, conn, *s)
	if err != nil {
		s.Set(CapIndexMonitor, false, "cannot read the module_index monitors' state: "+err.Error())
		return nil, []string{"InnoDB monitors: " + err.Error()}
	}
	var enVar, disVar sql.NullString
	if err := conn.QueryRowContext(ctx, mq("monitor_vars", v)).Scan(&enVar, &disVar); err != nil {
		return nil, []string{"InnoDB monitors: read innodb_monitor_enable: " + err.Error()}
	}
	if _, err := conn.ExecContext(ctx, mq("monitor_enable_module", v)); err != nil {
		if pe := AsPrivilegeError(err, *s, MonitorPrivilege(*s), fmt.Sprintf("GRANT %s ON *.* TO %s", MonitorPrivilege(*s), s.Prop(PropHostUser))); pe != nil {
			s.Set(CapIndexMonitor, false, monitorDeniedReason(*s))
			return nil, []string{"page splits and merges are unavailable: " + monitorDeniedReason(*s)}
		}
		s.Set(CapIndexMonitor, false, "SET GLOBAL innodb_monitor_enable = 'module_index' failed: "+err.Error())
		return nil, []string{"InnoDB monitors: " + err.Error()}
	}
	s.Set(CapIndexMonitor, true, "")
	p := &prior{AllOff: true, EnableVarNull: !enVar.Valid, DisableVarNull: !disVar.Valid}
	for name, on := range before {
		if on {
			p.AllOff = false
		} else {
			p.WereOff = append(p.WereOff, name)
		}
	}
	return p, nil
}

// restoreIfLast puts the monitors back as the ledger says when no other
// run is measuring, and drops the ledger.
func restoreIfLast(ctx context.Context, conn *sql.Conn, s *dialects.Server, slot int) error {
	v := s.VersionNum
	if err := lockLedger(ctx, conn, v); err != nil {
		return fmt.Errorf("mysql: the InnoDB monitors writeamp turned on stay on: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), mq("ledger_unlock", v))
	if n, err := othersMeasuring(ctx, conn, v, slot); err != nil || n > 0 {
		if err != nil {
			return fmt.Errorf("mysql: the InnoDB monitors writeamp turned on stay on: %w", err)
		}
		return fmt.Errorf("the InnoDB monitor module_index stays on: %d other writeamp run(s) measuring restore it when they end: %w", n, dialects.ErrInUse)
	}
	p, created := readLedger(ctx, conn, v)
	if p == nil {
		return nil // another run restored it already
	}
	// Caps is a map shared by every copy of the Server: say the monitors are
	// off again, or the next window would read stale counters.
	s.Set(CapIndexMonitor, false, monitorReason(*s))
	var errs []error
	if p.AllOff {
		if _, err := conn.ExecContext(ctx, mq("monitor_disable_module", v)); err != nil {
			errs = append(errs, err)
		}
	} else {
		for _, name := range p.WereOff {
			if _, err := conn.ExecContext(ctx, mq("monitor_disable", v), name); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	}
	if p.EnableVarNull {
		if _, err := conn.ExecContext(ctx, mq("monitor_enable_var_default", v)); err != nil {
			errs = append(errs, err)
		}
	}
	if p.DisableVarNull {
		if _, err := conn.ExecContext(ctx, mq("monitor_disable_var_default", v)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("mysql: turn the InnoDB module_index monitors writeamp enabled (%s) back off (SET GLOBAL innodb_monitor_disable = 'module_index'): %w", created, err)
	}
	if _, err := conn.ExecContext(ctx, mq("ledger_drop", v)); err != nil {
		return fmt.Errorf("mysql: drop writeamp_ledger: %w", err)
	}
	return nil
}

// Leftovers reports InnoDB monitors writeamp turned on that no run restores
// any more (a run killed before its cleanup), and restores them when asked.
func (Dialect) Leftovers(ctx context.Context, db *sql.DB, s dialects.Server, drop bool) ([]string, error) {
	v := s.VersionNum
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	p, created := readLedger(ctx, conn, v)
	if p == nil {
		return nil, nil
	}
	n, err := othersMeasuring(ctx, conn, v, -1)
	switch {
	case err != nil:
		return nil, err
	case n > 0:
		return []string{"InnoDB monitor module_index (in use: " + created + ")"}, nil
	case !drop:
		return []string{"InnoDB monitor module_index (abandoned: " + created + "; the run that turned it on did not finish; writeamp_ledger holds the state to restore)"}, nil
	}
	if err := restoreIfLast(ctx, conn, &s, -1); err != nil && !errors.Is(err, dialects.ErrInUse) {
		return nil, err
	}
	return []string{"InnoDB monitor module_index (abandoned: " + created + "; restored, writeamp_ledger dropped)"}, nil
}
