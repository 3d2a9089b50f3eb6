package check

import (
	"context"
	"fmt"
	"sync"

	"github.com/writeamp/writeamp/dialects"
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
	return dialects.CheckOf(c.s.Dialect).ObjectExists(c.ctx, c.q, c.s, o)
}
