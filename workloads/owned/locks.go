package owned

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// lockSession is the marker's lock_kind for a schema guarded by its lock.
const lockSession = "session"

func lockName(schema string) string { return "writeamp:" + strings.ToLower(schema) }

// lockGrants say what a login needs to take a lock, where it needs anything.
var lockGrants = map[string]string{"oracle": "GRANT EXECUTE ON SYS.DBMS_LOCK TO <user>"}

// tryLock takes a schema's lock on conn without waiting: true when taken.
func (o *Schemas) tryLock(ctx context.Context, conn dialects.Querier, schema string) (bool, error) {
	q := o.mustSQL("owned_schema_lock")
	if o.t.Server.Dialect == "oracle" {
		// A PL/SQL block has no result: a lock held by another raises ORA-20001.
		_, err := conn.ExecContext(ctx, q, lockName(schema))
		if err != nil && strings.Contains(err.Error(), "ORA-20001") {
			return false, nil
		}
		return err == nil, err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, q, lockName(schema)).Scan(&got); err != nil {
		return false, err
	}
	if !got.Valid {
		return false, fmt.Errorf("the database could not take lock %s", lockName(schema))
	}
	return got.Int64 == 1, nil
}

func (o *Schemas) unlock(ctx context.Context, conn dialects.Querier, schema string) error {
	_, err := conn.ExecContext(ctx, o.mustSQL("owned_schema_unlock"), lockName(schema))
	return err
}

// hold takes the current schema's lock on a connection of its own, kept
// until release.
func (o *Schemas) hold(ctx context.Context) error {
	conn, err := o.t.DB.Conn(ctx)
	if err != nil {
		return err
	}
	ok, err := o.tryLock(ctx, conn, o.schema)
	if err != nil || !ok {
		conn.Close()
		if err == nil {
			return fmt.Errorf("schema %s: its lock %s is held by another session (a run id collision: run again)", o.schema, lockName(o.schema))
		}
		fix := ""
		if g, ok := lockGrants[o.t.Server.Dialect]; ok {
			fix = " (fix: " + o.names(g) + ")"
		}
		return fmt.Errorf("take the lock that marks schema %s as in use: %w%s", o.schema, err, fix)
	}
	o.lockConn = conn
	return nil
}

// release gives up the current schema's lock and its connection.
func (o *Schemas) release(ctx context.Context) {
	if o.lockConn == nil {
		return
	}
	o.unlock(ctx, o.lockConn, o.schema)
	o.lockConn.Close()
	o.lockConn = nil
}

// marker is what a schema's writeamp_owner row says.
type marker struct {
	RunID, Host, Started, Lock string
	PID                        int
	Kept                       bool
	Legacy                     bool // written before schema locks: no lock kind, no kept flag
}

func (o *Schemas) readMarker(ctx context.Context, q dialects.Querier) (marker, error) {
	var m marker
	var kept int
	err := q.QueryRowContext(ctx, o.mustSQL("owned_marker_read")).Scan(&m.RunID, &m.PID, &m.Host, &m.Started, &m.Lock, &kept)
	if err == nil {
		m.Kept = kept != 0
		return m, nil
	}
	if lerr := q.QueryRowContext(ctx, o.mustSQL("owned_marker_read_legacy")).Scan(&m.RunID, &m.PID, &m.Host); lerr == nil {
		m.Legacy = true
		return m, nil
	}
	return m, err
}
