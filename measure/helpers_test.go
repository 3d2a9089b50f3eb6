package measure_test

import (
	"testing"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

func pgSet(t *testing.T) *collectors.Set {
	s, err := collectors.For(pg.Name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func collectorsScope() collectors.Scope { return collectors.Scope{} }
