package collectors

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

// missingFrom turns a Supports/Collect error into a report line.
func missingFrom(name string, err error) Missing {
	r := dialects.ReasonOf(err)
	return Missing{Collector: name, Reason: r.Text, Fix: r.FixLine(), Kind: string(r.Kind), Lacks: dialects.Lacking(err)}
}

// Take reads every supported source, in order, inside one read-only
// transaction: its marks, its catalog, its counters. A collector that fails
// is recorded in Missing and the snapshot goes on; a failing marker or
// catalog fails the snapshot.
func (set *Set) Take(ctx context.Context, db *sql.DB, s dialects.Server, sc Scope) (*Snapshot, error) {
	snap := &Snapshot{Server: s, Scope: sc, Marks: map[string]string{}}
	tx, err := set.begin(ctx, db, s)
	if err != nil {
		return nil, fmt.Errorf("snapshot: open read-only transaction: %w", err)
	}
	// Rollback, not commit: the observer leaves nothing, not even a commit record.
	defer tx.Rollback()
	snap.TakenAt = time.Now().UTC()
	// Each collector's counters are kept apart and joined once: appending
	// tens of thousands of counters to one growing slice copied them over
	// and over.
	var parts [][]Counter
	defer func() {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		snap.Counters = make([]Counter, 0, n)
		for _, p := range parts {
			snap.Counters = append(snap.Counters, p...)
		}
	}()
	for _, src := range set.Sources {
		if err := src.Supports(s); err != nil {
			snap.Missing = append(snap.Missing, missingFrom(src.Name(), err))
			continue
		}
		if m, ok := src.(Marker); ok {
			marks, err := m.Marks(ctx, tx, s)
			if err != nil {
				return nil, fmt.Errorf("snapshot: %s: %w", src.Name(), err)
			}
			for k, v := range marks {
				snap.Marks[k] = v
			}
		}
		if cat, ok := src.(Catalog); ok {
			// The objects in scope are what every report is about: a
			// catalog that cannot be read fails the snapshot.
			objs, cs, err := cat.Catalog(ctx, tx, s, sc)
			var note *CatalogNote
			if errors.As(err, &note) {
				snap.Missing = append(snap.Missing, Missing{Collector: src.Name(), Reason: note.Reason})
				err = nil
			}
			if err != nil {
				return nil, fmt.Errorf("snapshot: %s: %w", src.Name(), err)
			}
			snap.Objects = append(snap.Objects, objs...)
			parts = append(parts, cs)
		}
		if sc, ok := src.(StatementCollector); ok {
			var st *Statements
			_, err := set.collectOne(ctx, tx, src.Name(), func() ([]Counter, error) {
				var err error
				st, err = sc.Statements(ctx, tx, s)
				return nil, err
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				snap.Missing = append(snap.Missing, missingFrom(src.Name(), err))
				continue
			}
			snap.Statements = st
		}
		var read func() ([]Counter, error)
		switch c := src.(type) {
		case Collector:
			read = func() ([]Counter, error) { return c.Collect(ctx, tx, s, sc) }
		case ObjectCollector:
			read = func() ([]Counter, error) { return c.CollectObjects(ctx, tx, s, snap.Objects) }
		}
		if read != nil {
			cs, err := set.collectOne(ctx, tx, src.Name(), read)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				snap.Missing = append(snap.Missing, missingFrom(src.Name(), err))
				continue
			}
			parts = append(parts, cs)
		}
	}
	return snap, nil
}

// begin opens the dialect's observer transaction (read-only where the
// driver supports it; some drivers refuse sql.TxOptions.ReadOnly).
func (set *Set) begin(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.Tx, error) {
	if set.SnapshotTx != nil {
		return set.SnapshotTx(ctx, db, s)
	}
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

func (set *Set) collectOne(ctx context.Context, tx *sql.Tx, name string, read func() ([]Counter, error)) ([]Counter, error) {
	if set.Savepoint != "" {
		if _, err := tx.ExecContext(ctx, set.Savepoint); err != nil {
			return nil, fmt.Errorf("%s: savepoint: %w", name, err)
		}
	}
	cs, err := read()
	if err != nil {
		if set.RollbackTo != "" {
			if _, rerr := tx.ExecContext(ctx, set.RollbackTo); rerr != nil {
				return nil, fmt.Errorf("%s: %w (and the rollback to savepoint failed: %v)", name, err, rerr) //nolint:errorlint // the first error is the cause callers classify; the rollback's failure after it is reported, not matched
			}
		}
		return nil, err
	}
	return cs, nil
}
