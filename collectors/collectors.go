package collectors

import (
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Level says what a counter belongs to.
type Level string

const (
	DB    Level = "database"
	Table Level = "table"
	Index Level = "index"
)

// Key names one number: for tables and indexes Object is "schema.name".
type Key struct {
	Level  Level  `json:"level"`
	Object string `json:"object,omitempty"`
	Metric string `json:"metric"`
}

func (k Key) String() string {
	if k.Object == "" {
		return string(k.Level) + ":" + k.Metric
	}
	return string(k.Level) + ":" + k.Object + ":" + k.Metric
}

// Counter is one reading. Cumulative counters and positions (LSNs) are
// diffed; Interval counters were already measured over the window.
type Counter struct {
	Key
	Value     float64          `json:"value"`
	Exactness result.Exactness `json:"exactness"`
	Source    string           `json:"source"`
	// Identity changes when the object was recreated (new oid, DATAOBJ#,
	// partition) so its counters restarted: a diff then reports a reset.
	Identity string `json:"identity,omitempty"`
	// Reset is when the counter's statistics were last reset ("" = never,
	// or not known): a change inside the window means the counter restarted
	// from zero even if it has since grown past its "before" value.
	Reset    string `json:"reset,omitempty"`
	Interval bool   `json:"interval,omitempty"`
	// Gauge values (sizes) may go down without that being a reset.
	Gauge bool   `json:"gauge,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Object is a table or index in scope, from the catalog.
type Object struct {
	Level  Level             `json:"level"`
	Schema string            `json:"schema"`
	Name   string            `json:"name"`
	Table  string            `json:"table,omitempty"` // the index's table (name, no schema)
	ID     string            `json:"id,omitempty"`    // dialect's id, e.g. PostgreSQL relfilenode
	Info   map[string]string `json:"info,omitempty"`
}

// FQN is "schema.name".
func (o Object) FQN() string { return o.Schema + "." + o.Name }

// Missing records a collector that gave nothing.
type Missing = result.Missing

// Snapshot is one reading of every collector.
type Snapshot struct {
	Server   dialects.Server   `json:"server"`
	TakenAt  time.Time         `json:"taken_at"`
	Scope    Scope             `json:"scope"`
	Counters []Counter         `json:"counters"`
	Objects  []Object          `json:"objects,omitempty"`
	Marks    map[string]string `json:"marks,omitempty"`
	Missing  []Missing         `json:"missing,omitempty"`
	// Statements is the server's per-statement statistics, where read.
	Statements *Statements `json:"statements,omitempty"`
}

func ptr(v float64) *float64 { return &v }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// NewKey names one number by its catalogue entry: the collectors and
// derivers write every Key through it (or the dialects' key helpers), so a
// metric the catalogue does not define does not compile.
func NewKey(level Level, obj string, m *result.Info) Key {
	return Key{Level: level, Object: obj, Metric: m.Name}
}
