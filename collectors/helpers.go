package collectors

import (
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// SQL is the dialect's named query block in its variant for the server: a
// block missing for its version is the caller's error (a collector's is
// recorded as its Missing).
func SQL(dialect, name string, s dialects.Server) (string, error) {
	return queries.Get(dialect, name, s.VersionNum)
}

// FQN is an object's name as counters key it: schema.name.
func FQN(schema, name string) string { return schema + "." + name }

// NewCounter is one reading of a catalogue metric; the dialects' collectors
// build every counter through it, so a metric outside the catalogue does not
// compile.
func NewCounter(level Level, obj string, m *result.Info, v float64, e result.Exactness, source, id string) Counter {
	return Counter{Key: NewKey(level, obj, m), Value: v, Exactness: e, Source: source, Identity: id}
}
