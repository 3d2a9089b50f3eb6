package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// A window's WAL must still be on the server when pg_walinspect reads it.
// A checkpoint recycles the segments before its redo point, so a window that
// spans checkpoints (a long measure, a snapshot...diff around a nightly job)
// loses its start. A physical replication slot reserved before the window
// keeps every segment from its restart point on until the slot is dropped.

// maxIdleSnapshotSlots is how many undiffed snapshots may keep WAL at once.
const maxIdleSnapshotSlots = 4

// SlotPrefix marks the slots writeamp creates; nothing else is ever dropped.
const SlotPrefix = "writeamp_"

// slotName is unique per window and says when it was made, so a slot left
// by a snapshot that was never diffed can be told apart and aged.
func slotName(kind string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s%s_%d_%s", SlotPrefix, kind, time.Now().Unix(), hex.EncodeToString(b))
}

// HoldWAL reserves the WAL from now on for the lifetime of one process: a
// temporary slot on a connection of its own, which the server drops when
// the connection ends, even if writeamp is killed. release drops it at once.
func (Dialect) HoldWAL(ctx context.Context, db *sql.DB, s dialects.Server) (release func(context.Context) error, err error) {
	if err := canHold(s); err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	name := slotName("run")
	if _, err := queries.Exec(ctx, conn, Name, "create_temp_slot", s.VersionNum, name); err != nil {
		conn.Close()
		return nil, fmt.Errorf("reserve the window's WAL (replication slot %s): %w", name, err)
	}
	return func(ctx context.Context) error {
		defer conn.Close()
		if _, err := queries.Exec(ctx, conn, Name, "drop_slot", s.VersionNum, name); err != nil {
			return fmt.Errorf("postgres: drop replication slot %s: %w (it goes when the connection closes)", name, err)
		}
		return nil
	}, nil
}

// ReserveWAL creates a slot that outlives this process, for a snapshot file:
// the diff that reads the window drops it (ReleaseWAL).
func (Dialect) ReserveWAL(ctx context.Context, db *sql.DB, s dialects.Server) (string, error) {
	if err := canHold(s); err != nil {
		return "", err
	}
	// Snapshots never diffed keep their slots, and every slot keeps WAL on
	// the server's disk: past a few, the next snapshot takes none.
	if slots, err := Slots(ctx, db, s); err == nil {
		idle := 0
		for _, sl := range slots {
			if !sl.Active && strings.HasPrefix(sl.Name, SlotPrefix+"snap_") {
				idle++
			}
		}
		if idle >= maxIdleSnapshotSlots {
			return "", fmt.Errorf("%w: %d replication slots of earlier snapshots that were never diffed with --dsn still keep WAL on the server (writeamp clean lists them, writeamp clean --drop drops them), so this snapshot takes none", dialects.ErrUnsupported, idle)
		}
	}
	name := slotName("snap")
	if _, err := queries.Exec(ctx, db, Name, "create_slot", s.VersionNum, name); err != nil {
		return "", fmt.Errorf("reserve the window's WAL (replication slot %s): %w", name, err)
	}
	return name, nil
}

// canHold says whether a slot is both possible and of use: when this login
// can neither decode the segments nor use pg_walinspect, nothing reads the
// window's WAL afterwards.
func canHold(s dialects.Server) error {
	if !s.Has(CapWALFiles) && !s.Has(CapWalinspect) {
		return fmt.Errorf("%w: nothing reads the window's WAL (%s)", dialects.ErrUnsupported, s.Why(CapWalinspect))
	}
	if !s.Has(CapHoldWAL) {
		return fmt.Errorf("%w: %s", dialects.ErrUnsupported, s.Why(CapHoldWAL))
	}
	return nil
}

// ReleaseWAL drops a slot ReserveWAL made; one that is already gone is fine.
func (Dialect) ReleaseWAL(ctx context.Context, db *sql.DB, s dialects.Server, name string) error {
	if !strings.HasPrefix(name, SlotPrefix) {
		return fmt.Errorf("postgres: %q is not a writeamp replication slot: not dropped", name)
	}
	if _, err := queries.Exec(ctx, db, Name, "drop_slot_if_exists", s.VersionNum, name); err != nil {
		return fmt.Errorf("postgres: drop replication slot %s: %w", name, err)
	}
	return nil
}

// Slot is a writeamp replication slot on the server.
type Slot struct {
	Name     string
	Created  time.Time // from the name; zero if unknown
	Active   bool
	Retained int64 // bytes of WAL the slot keeps
}

// Slots lists writeamp's slots, so stale ones (a snapshot never diffed) can
// be reported and dropped on request.
func Slots(ctx context.Context, q dialects.Querier, s dialects.Server) ([]Slot, error) {
	rows, err := queries.Query(ctx, q, Name, "list_slots", s.VersionNum, SlotPrefix+"%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Slot
	for rows.Next() {
		var sl Slot
		if err := rows.Scan(&sl.Name, &sl.Active, &sl.Retained); err != nil {
			return nil, err
		}
		if parts := strings.Split(sl.Name, "_"); len(parts) >= 4 {
			if sec, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
				sl.Created = time.Unix(sec, 0)
			}
		}
		out = append(out, sl)
	}
	return out, rows.Err()
}

// StaleReservations names writeamp slots older than age that nobody uses:
// each keeps WAL on the server's disk until it is dropped.
func (Dialect) StaleReservations(ctx context.Context, db *sql.DB, s dialects.Server, age time.Duration) []string {
	slots, err := Slots(ctx, db, s)
	if err != nil {
		return nil
	}
	var out []string
	for _, sl := range slots {
		if sl.Active || sl.Created.IsZero() || time.Since(sl.Created) < age {
			continue
		}
		out = append(out, fmt.Sprintf("replication slot %s, made by writeamp snapshot %s ago, keeps %d MB of WAL on the server: `writeamp diff --dsn … BEFORE.json AFTER.json` drops it after reading the window, or drop it now: SELECT pg_drop_replication_slot('%s')",
			sl.Name, time.Since(sl.Created).Round(time.Minute), sl.Retained>>20, sl.Name))
	}
	return out
}
