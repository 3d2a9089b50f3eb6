package collectors

import (
	"errors"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func TestSharedHelpers(t *testing.T) {
	c := NewCounter(Index, FQN("s", "t_pkey"), result.LeafInserts, 7, result.Approx, "src", "id")
	if c.Key != (Key{Level: Index, Object: "s.t_pkey", Metric: "leaf_inserts"}) || c.Value != 7 || c.Exactness != result.Approx || c.Source != "src" || c.Identity != "id" {
		t.Errorf("NewCounter: %+v", c)
	}
	s := dialects.Server{VersionNum: 150000}
	if text, err := SQL("postgres", "vacuum", s); err != nil || !strings.HasPrefix(text, "VACUUM") {
		t.Errorf("SQL(vacuum): %q, %v", text, err)
	}
	var missing *queries.MissingError
	if _, err := SQL("postgres", "no_such_block", s); !errors.As(err, &missing) {
		t.Errorf("a missing block: %v", err)
	}
}
