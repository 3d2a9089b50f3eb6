package result

import (
	"sort"
	"strings"
)

// The metric catalogue: every name a result can hold at database, table or
// index level, across dialects, with what a reader needs to show, check and
// compare it. Each metric is an exported *Info (LeafInserts, LogBytes, ...)
// and the collectors and derivers emit through those values, so a name the
// catalogue does not hold does not compile. Budgets (which names exist,
// which take byte units), the reports (labels, order, units, which way is
// better, which metrics findings judge and how they word them, the chart and
// the timeline), plan and Validate (which numbers may be negative) all read
// it.
//
// Adding a metric, end to end:
//  1. the SQL block in queries/<dialect>/*.sql that reads the column (the
//     block header's version range is the only version gate);
//  2. one line here: Name = def(Info{Name: "snake_name", Levels: ...,
//     Unit: ..., Label: ..., Better: ...}) in display order; add a Finding
//     spec to have findings word it at table or index level (every
//     database-level metric is judged without one), Chart or Timeline to put
//     it there;
//  3. the collector's line that emits it: collectors.NewCounter(collectors.DB,
//     "", result.SnakeName, v, ...) (it takes the *Info).
//
// The JSON carries Name only, so a value from a branch that still writes
// string names converts by replacing "snake_name" with result.SnakeName.Name
// (or the *Info where a helper takes one).

// Unit is what a metric's value counts.
type Unit string

const (
	Count    Unit = "count" // events, rows, entries, records, runs
	Bytes    Unit = "bytes"
	Pages    Unit = "pages"
	Millis   Unit = "ms"
	Seconds  Unit = "s"
	Fraction Unit = "ratio" // 0..1, shown as a percentage
)

// Better says which way a change is an improvement (the html colours it).
type Better string

const (
	Lower   Better = "lower"   // a cost: fewer bytes, entries, splits, waits
	Higher  Better = "higher"  // HOT updates and their ratio
	Neither Better = "neither" // the work itself (rows changed), or context
)

// Level is where a metric is kept: the result's database map, a table or an index.
type Level string

const (
	LevelDatabase Level = "database"
	LevelTable    Level = "table"
	LevelIndex    Level = "index"
)

// Show says where the human tables (table, markdown, html) show a metric;
// the json and csv carry every metric.
type Show int

const (
	Shown       Show = iota
	WhenNonZero      // only matters when something happened
	JSONOnly         // reads or bookkeeping: json and csv only
	// WhenShare: a sampled share shown only when some run spent at least
	// MinShownShare of its time in it; a rarer state rests on a handful of
	// samples (the json and csv keep it).
	WhenShare
)

// MinShownShare is where WhenShare starts showing a share.
const MinShownShare = 0.01

// FindingSpec says how findings judge and word a metric below the database
// level: Level is where it is judged, "<run> <Verb> 9.1% fewer <Noun>" the
// sentence, Rank the tie-break order among equal effects, and Secondary
// ranks it after the headline metrics whatever its effect (a 94% drop of
// 0.02 page splits per operation matters less than 1 index entry).
type FindingSpec struct {
	Level      Level
	Verb, Noun string
	Rank       int
	Secondary  bool
}

// Info is one catalogue entry; the catalogue's values are *Info.
type Info struct {
	Name   string
	Levels []Level
	Unit   Unit
	Label  string // as the tables print it
	Order  int    // display order within a section (the catalogue's order)
	Better Better
	// Negative: the value may fall in a window without being a reset (a
	// size: a vacuum truncates a relation). Every other metric counts
	// something, and a negative value is an edited file.
	Negative bool
	Show     Show
	// Total: shown as the window's total only, never per operation (counts
	// of background work that does not scale with the workload).
	Total bool
	// Finding: judged at table or index level by findings (nil: at the
	// database level only, as every database-level metric is).
	Finding *FindingSpec
	// Chart is the html chart that draws the metric's rows at ChartLevel
	// ("leaf": index entries per index, "log": the log's bytes, "hot": the
	// HOT ratio per table); "" for none.
	Chart      string
	ChartLevel Level
	// Timeline is the metric's place among the timeline's per-second series
	// (1 first; 2 is the rows-changed sum the reports make); 0 for none.
	Timeline int
}

// String is the metric's name, as results, budgets and JSON write it.
func (m *Info) String() string { return m.Name }

// def adds a metric to the catalogue in declaration order.
func def(m Info) *Info {
	p := &m
	catalogue = append(catalogue, p)
	return p
}

var catalogue []*Info

// DriverLatency is the one metric findings judge that no run, table or
// index holds under a name: an operation's p95 latency as the driver timed
// it (Run.LatencyMS). It stays out of the catalogue, so Lookup, the tables
// and budgets do not take it; findings, their noise and the csv name it
// through this value.
var DriverLatency = &Info{Name: "latency", Unit: Millis, Label: "p95 latency", Better: Lower}

// IsBytes, IsRatio: the metric's unit.
func (i Info) IsBytes() bool { return i.Unit == Bytes }
func (i Info) IsRatio() bool { return i.Unit == Fraction }

// At reports whether the metric is kept at this level.
func (i Info) At(l Level) bool {
	for _, x := range i.Levels {
		if x == l {
			return true
		}
	}
	return false
}

var (
	db    = []Level{LevelDatabase}
	tb    = []Level{LevelTable}
	ix    = []Level{LevelIndex}
	dbTb  = []Level{LevelDatabase, LevelTable}
	dbIx  = []Level{LevelDatabase, LevelIndex}
	tbIx  = []Level{LevelTable, LevelIndex}
	every = []Level{LevelDatabase, LevelTable, LevelIndex}
)

// WaitsPrefix starts the one family of names: the server's wait events,
// "waits.<event>" (how often) and "waits.<event>_ms" (how long), named
// after the event in lower case (SQL Server wait types, Oracle events,
// InnoDB row locks, performance_schema instruments with their "/" kept).
// They follow every named metric, alphabetically. SessionWaitsPrefix is
// the same events restricted to the workload's own sessions.
const (
	WaitsPrefix        = "waits."
	SessionWaitsPrefix = "session_waits."
)

// WaitSharePrefix starts the sampled family: "wait_share.<Class>.<Event>",
// the share of the workload's sampled active time spent in that state
// (Lock.transactionid, CPU.running), and OpWaitSharePrefix
// "op_wait_share.<op>.<Class>.<Event>" the same within one operation's
// time. Approx always (sampled), shown after the named metrics.
const (
	WaitSharePrefix   = "wait_share."
	OpWaitSharePrefix = "op_wait_share."
)

// shareInfo is the entry of a wait share, or false for another name.
func shareInfo(name string) (Info, bool) {
	i := Info{Name: name, Levels: db, Unit: Fraction, Order: len(catalogue) + 1, Better: Lower, Total: true, Show: WhenShare}
	if w, ok := strings.CutPrefix(name, WaitSharePrefix); ok && w != "" {
		i.Label = "share of active time: " + w
		return i, true
	}
	if w, ok := strings.CutPrefix(name, OpWaitSharePrefix); ok {
		op, w, ok := strings.Cut(w, ".")
		if ok && op != "" && w != "" {
			i.Label = "share of " + op + " time: " + w
			i.Order++
			return i, true
		}
	}
	return Info{}, false
}

var byName = map[string]*Info{}

// The metrics are package variables initialised before init runs.
func init() {
	for i, m := range catalogue {
		if byName[m.Name] != nil {
			panic("result: metric " + m.Name + " defined twice")
		}
		m.Order = i
		byName[m.Name] = m
	}
}

// MigrationPrefix names a metric of check's migration window in a budget.
const MigrationPrefix = "migration."

// Lookup returns a metric's catalogue entry, false for a name writeamp does
// not write (a result from a newer writeamp may hold one: show it, as a count).
func Lookup(name string) (Info, bool) {
	if m, ok := byName[name]; ok {
		return *m, true
	}
	// check's budgets on the migration's own window (migration.log_bytes)
	// take the unit of the metric they name.
	if rest, ok := strings.CutPrefix(name, MigrationPrefix); ok {
		if m, ok := byName[rest]; ok {
			i := *m
			i.Name = name
			return i, true
		}
	}
	if i, ok := shareInfo(name); ok {
		return i, true
	}
	if i, ok := replicaInfo(name); ok {
		return i, true
	}
	event, ok := strings.CutPrefix(name, WaitsPrefix)
	who := ""
	if !ok {
		event, ok = strings.CutPrefix(name, SessionWaitsPrefix)
		who = "workload sessions' "
	}
	if !ok || event == "" || event == "_ms" {
		return Info{Name: name, Unit: Count, Label: strings.ReplaceAll(name, "_", " "), Order: len(catalogue) + 3, Better: Neither}, false
	}
	i := Info{Name: name, Levels: db, Unit: Count, Order: len(catalogue), Better: Lower}
	if e, ms := strings.CutSuffix(event, "_ms"); ms {
		i.Unit, i.Label = Millis, who+strings.ReplaceAll(e, "_", " ")+" wait time"
	} else {
		i.Label = who + strings.ReplaceAll(event, "_", " ") + " waits"
	}
	if strings.Contains(event, "/") {
		// performance_schema has dozens of instruments per server: the
		// tables list those that counted something, the json every one.
		i.Show = WhenNonZero
	}
	if who != "" {
		i.Order++
	}
	return i, true
}

// Catalogue is every named metric in display order (the waits family not
// included: see WaitsPrefix).
func Catalogue() []Info {
	out := make([]Info, len(catalogue))
	for i, m := range catalogue {
		out[i] = *m
	}
	return out
}

// Metrics is every named metric in display order, as the values collectors emit.
func Metrics() []*Info { return append([]*Info(nil), catalogue...) }

// Names is every named metric, sorted.
func Names() []string {
	out := make([]string, 0, len(catalogue))
	for _, i := range catalogue {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return out
}

// SortNames orders metric names for display: by the catalogue, then by name.
func SortNames(names []string) {
	sort.SliceStable(names, func(a, b int) bool {
		x, _ := Lookup(names[a])
		y, _ := Lookup(names[b])
		if x.Order != y.Order {
			return x.Order < y.Order
		}
		return names[a] < names[b]
	})
}

// MayBeNegative says whether a negative value of the metric is a measurement
// (a gauge that fell) rather than an edited file. Unknown names count.
func MayBeNegative(name string) bool {
	i, _ := Lookup(name)
	return i.Negative
}

// Family is the entry of a name in one of the families whose members are
// the server's own events (WaitsPrefix, SessionWaitsPrefix, WaitSharePrefix,
// OpWaitSharePrefix): the collectors emit those through it, as they emit a
// named metric through its value.
func Family(name string) *Info {
	i, _ := Lookup(name)
	return &i
}
