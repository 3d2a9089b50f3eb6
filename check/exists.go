package check

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// catalogExistence asks the database whether what an IF [NOT] EXISTS names
// is there, while nothing is applied yet, and remembers each answer: the
// undo computed later, from the statements that were applied, must see
// the database as it was before them, not as they left it.
type catalogExistence struct {
	ctx    context.Context
	q      dialects.Querier
	s      dialects.Server
	mu     sync.Mutex
	seen   map[sqlparse.Object]answer
	frozen bool
}

type answer struct {
	there bool
	err   error
}

func newCatalogExistence(ctx context.Context, q dialects.Querier, s dialects.Server) *catalogExistence {
	return &catalogExistence{ctx: ctx, q: q, s: s, seen: map[sqlparse.Object]answer{}}
}

// freeze ends the asking: from now on the database holds what check
// applied, and only the answers given before count.
func (c *catalogExistence) freeze() {
	c.mu.Lock()
	c.frozen = true
	c.mu.Unlock()
}

func (c *catalogExistence) exists(o sqlparse.Object) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.seen[o]; ok {
		return a.there, a.err
	}
	if c.frozen {
		return false, fmt.Errorf("not asked before the migration was applied")
	}
	there, err := c.ask(o)
	c.seen[o] = answer{there, err}
	return there, err
}

func (c *catalogExistence) ask(o sqlparse.Object) (bool, error) {
	switch c.s.Dialect {
	case "postgres":
		text, err := queries.Get(c.s.Dialect, "object_exists", c.s.VersionNum)
		if err != nil {
			return false, err
		}
		var there sql.NullBool
		if err := c.q.QueryRowContext(c.ctx, text, o.Kind, o.Schema, o.Name, o.Table, o.Create).Scan(&there); err != nil {
			return false, fmt.Errorf("postgres: %w", err)
		}
		if !there.Valid {
			return false, fmt.Errorf("postgres: no existence query for a %s", o.Kind)
		}
		return there.Bool, nil
	case "mysql":
		text, err := queries.Get(c.s.Dialect, "exists_"+o.Kind, c.s.VersionNum)
		if err != nil {
			return false, err
		}
		args := []any{o.Name, o.Schema, o.Name}
		if o.Table != "" {
			args = append(args, o.Table)
		}
		var loose, exact int64
		if err := c.q.QueryRowContext(c.ctx, text, args...).Scan(&loose, &exact); err != nil {
			return false, fmt.Errorf("mysql: %w", err)
		}
		switch o.Kind {
		case sqlparse.ObjIndex, sqlparse.ObjColumn, sqlparse.ObjProcedure, sqlparse.ObjFunction, sqlparse.ObjEvent:
			return loose > 0, nil // names the server compares without case
		}
		if exact == 0 && loose > 0 {
			return false, fmt.Errorf("a %s whose name differs only in letter case exists: whether the server takes them as one depends on lower_case_table_names", o.Kind)
		}
		return exact > 0, nil
	}
	return false, fmt.Errorf("%s: existence is not asked (its statements are not inverted)", c.s.Dialect)
}
