package result

import (
	"sort"
	"strings"
)

// The metric catalogue: every name a result can hold at database, table or
// index level, across dialects, with what a reader needs to show, check and
// compare it. Budgets (which names exist, which take byte units), the
// reports (labels, order, units, which way is better), plan and Validate
// (which numbers may be negative) all read it; TestCatalogueCoversTheCollectors
// keeps it in step with the names the collectors and derivers write.

// Unit is what a metric's value counts.
type Unit string

const (
	Count    Unit = "count" // events, rows, entries, records, runs
	Bytes    Unit = "bytes"
	Pages    Unit = "pages"
	Millis   Unit = "ms"
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

// Info is one catalogue entry.
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
}

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

// catalogue is in display order: the rows and HOT a table leads with, then
// the index writes, the log, and the rest alphabetically.
var catalogue = []Info{
	{Name: "rows_inserted", Levels: dbTb, Unit: Count, Label: "rows inserted", Better: Neither},
	{Name: "rows_updated", Levels: dbTb, Unit: Count, Label: "rows updated", Better: Neither},
	{Name: "hot_updates", Levels: tb, Unit: Count, Label: "hot updates", Better: Higher},
	{Name: "non_hot_updates", Levels: tb, Unit: Count, Label: "non hot updates", Better: Lower},
	{Name: "newpage_updates", Levels: tb, Unit: Count, Label: "newpage updates", Better: Lower},
	{Name: "hot_ratio", Levels: tb, Unit: Fraction, Label: "hot ratio", Better: Higher},
	{Name: "rows_deleted", Levels: dbTb, Unit: Count, Label: "rows deleted", Better: Neither},
	// rows_written: a table's rows inserted + updated + deleted where the
	// server counts only their sum (MariaDB's TABLE_STATISTICS.ROWS_CHANGED).
	{Name: "rows_written", Levels: tb, Unit: Count, Label: "rows written", Better: Neither},
	{Name: "leaf_inserts", Levels: ix, Unit: Count, Label: "leaf inserts", Better: Lower},
	{Name: "leaf_deletes", Levels: ix, Unit: Count, Label: "leaf deletes", Better: Lower},
	{Name: "leaf_updates", Levels: ix, Unit: Count, Label: "leaf updates", Better: Lower},
	{Name: "leaf_page_splits", Levels: ix, Unit: Count, Label: "leaf page splits", Better: Lower},
	{Name: "page_merges", Levels: dbIx, Unit: Count, Label: "page merges", Better: Lower, Show: WhenNonZero},
	{Name: "log_bytes", Levels: every, Unit: Bytes, Label: "log bytes", Better: Lower},
	{Name: "log_bytes_in_scope", Levels: db, Unit: Bytes, Label: "  of which the workload's objects", Better: Lower},
	{Name: "log_bytes_other_objects", Levels: db, Unit: Bytes, Label: "  of which other objects", Better: Neither, Show: WhenNonZero},
	{Name: "log_bytes_other", Levels: db, Unit: Bytes, Label: "  of which no object (checkpoints, WAL switches)", Better: Neither},
	{Name: "log_bytes_stat", Levels: db, Unit: Bytes, Label: "log bytes (statistics view)", Better: Lower},
	{Name: "log_records", Levels: every, Unit: Count, Label: "log records", Better: Lower},
	{Name: "fpi_count", Levels: every, Unit: Count, Label: "fpi count", Better: Lower, Show: WhenNonZero},
	{Name: "fpi_bytes", Levels: every, Unit: Bytes, Label: "fpi bytes", Better: Lower, Show: WhenNonZero},
	{Name: "page_splits", Levels: db, Unit: Count, Label: "page splits", Better: Lower},
	{Name: "transactions_committed", Levels: db, Unit: Count, Label: "transactions committed", Better: Neither},
	{Name: "block_changes", Levels: every, Unit: Count, Label: "block changes", Better: Lower},
	{Name: "page_latch_waits", Levels: ix, Unit: Count, Label: "page latch waits", Better: Lower, Show: WhenNonZero},
	{Name: "page_latch_wait_ms", Levels: ix, Unit: Millis, Label: "page latch wait time", Better: Lower, Show: WhenNonZero},
	{Name: "row_lock_waits", Levels: tbIx, Unit: Count, Label: "row lock waits", Better: Lower, Show: WhenNonZero},
	{Name: "size_bytes", Levels: tbIx, Unit: Bytes, Label: "size bytes", Better: Lower, Negative: true},
	{Name: "autovacuum_runs", Levels: tb, Unit: Count, Label: "autovacuum runs", Better: Neither, Show: WhenNonZero, Total: true},
	// run --vacuum: the VACUUM of the workload's tables after the variant's
	// window, measured in a window of its own. The dead rows are the
	// workload's, so these divide per operation like its own costs.
	{Name: "vacuum_log_bytes", Levels: every, Unit: Bytes, Label: "vacuum: log bytes", Better: Lower},
	{Name: "vacuum_log_records", Levels: every, Unit: Count, Label: "vacuum: log records", Better: Lower, Show: JSONOnly},
	{Name: "vacuum_fpi_count", Levels: every, Unit: Count, Label: "vacuum: fpi count", Better: Lower, Show: WhenNonZero},
	{Name: "vacuum_fpi_bytes", Levels: every, Unit: Bytes, Label: "vacuum: fpi bytes", Better: Lower, Show: JSONOnly},
	{Name: "vacuum_pages_touched", Levels: tbIx, Unit: Pages, Label: "vacuum: pages touched", Better: Lower},
	{Name: "vacuum_pages_scanned", Levels: tb, Unit: Pages, Label: "vacuum: heap pages scanned", Better: Lower},
	{Name: "vacuum_pages_removed", Levels: tb, Unit: Pages, Label: "vacuum: heap pages truncated", Better: Neither, Show: WhenNonZero},
	{Name: "vacuum_dead_rows_removed", Levels: tb, Unit: Count, Label: "vacuum: dead tuples pruned", Better: Lower},
	{Name: "vacuum_dead_items_removed", Levels: tb, Unit: Count, Label: "vacuum: dead line pointers freed", Better: Lower},
	{Name: "vacuum_buffers_dirtied", Levels: tb, Unit: Pages, Label: "vacuum: buffers dirtied", Better: Lower},
	{Name: "vacuum_index_entries_removed", Levels: ix, Unit: Count, Label: "vacuum: index entries removed", Better: Lower},
	{Name: "vacuum_index_pages_deleted", Levels: ix, Unit: Pages, Label: "vacuum: index pages deleted", Better: Lower, Show: WhenNonZero},
	{Name: "vacuum_buffer_hits", Levels: tbIx, Unit: Count, Label: "vacuum: buffer hits", Better: Lower, Show: JSONOnly},
	{Name: "vacuum_buffer_reads", Levels: tbIx, Unit: Count, Label: "vacuum: buffer reads", Better: Lower, Show: JSONOnly},
	// the rest, alphabetically
	{Name: "autoanalyze_runs", Levels: tb, Unit: Count, Label: "autoanalyze runs", Better: Neither, Show: JSONOnly, Total: true},
	{Name: "binlog_bytes", Levels: db, Unit: Bytes, Label: "binlog bytes", Better: Lower},
	{Name: "branch_node_splits", Levels: db, Unit: Count, Label: "branch node splits", Better: Lower},
	// Shared buffers: per relation (pg_statio_*) the accesses, hits and
	// reads; for the cluster (pg_stat_io, 16+) also the pages written and
	// the pages added, whoever wrote them.
	{Name: "buffer_extends", Levels: db, Unit: Pages, Label: "buffer pages extended (cluster)", Better: Lower, Show: WhenNonZero},
	{Name: "buffer_hits", Levels: every, Unit: Count, Label: "buffer hits", Better: Neither, Show: JSONOnly},
	{Name: "buffer_reads", Levels: every, Unit: Count, Label: "buffer reads", Better: Lower, Show: JSONOnly},
	{Name: "buffer_writes", Levels: db, Unit: Pages, Label: "buffer pages written (cluster)", Better: Lower, Show: WhenNonZero},
	{Name: "buffer_writes_backend", Levels: db, Unit: Pages, Label: "  of which by client backends", Better: Lower, Show: WhenNonZero},
	{Name: "buffer_busy_waits", Levels: tbIx, Unit: Count, Label: "buffer busy waits", Better: Lower},
	{Name: "checkpoints", Levels: db, Unit: Count, Label: "checkpoints", Better: Neither},
	{Name: "commit_statements", Levels: db, Unit: Count, Label: "commit statements", Better: Neither},
	// InnoDB's change buffer (MySQL, MariaDB before 11.0): changes to cold
	// non-unique secondary-index pages merged in the window, and how much the
	// buffer grew. Merges are work deferred from earlier, not a cost or a gain.
	{Name: "ibuf_merged_delete_marks", Levels: db, Unit: Count, Label: "change buffer: delete-marks merged", Better: Neither, Show: WhenNonZero},
	{Name: "ibuf_merged_deletes", Levels: db, Unit: Count, Label: "change buffer: purges merged", Better: Neither, Show: WhenNonZero},
	{Name: "ibuf_merged_inserts", Levels: db, Unit: Count, Label: "change buffer: inserts merged", Better: Neither, Show: WhenNonZero},
	{Name: "ibuf_merges", Levels: db, Unit: Count, Label: "change buffer merges", Better: Neither, Show: WhenNonZero},
	{Name: "ibuf_size_pages", Levels: db, Unit: Pages, Label: "change buffer growth", Better: Neither, Negative: true, Show: WhenNonZero},
	{Name: "itl_waits", Levels: tbIx, Unit: Count, Label: "itl waits", Better: Lower},
	{Name: "leaf_allocations", Levels: ix, Unit: Count, Label: "leaf allocations", Better: Lower},
	{Name: "leaf_node_90_10_splits", Levels: db, Unit: Count, Label: "leaf node 90 10 splits", Better: Lower},
	{Name: "leaf_pages", Levels: ix, Unit: Pages, Label: "leaf pages", Better: Lower, Negative: true},
	{Name: "log_bytes_flushed", Levels: db, Unit: Bytes, Label: "log bytes flushed", Better: Lower},
	{Name: "log_bytes_written", Levels: db, Unit: Bytes, Label: "log bytes written", Better: Lower},
	{Name: "log_flushes", Levels: db, Unit: Count, Label: "log flushes", Better: Lower},
	{Name: "log_payload_bytes", Levels: db, Unit: Bytes, Label: "log payload bytes", Better: Lower},
	{Name: "log_record_bytes", Levels: db, Unit: Bytes, Label: "log record bytes", Better: Lower},
	{Name: "log_write_stall_ms", Levels: db, Unit: Millis, Label: "log write stall time", Better: Lower},
	{Name: "log_writes", Levels: db, Unit: Count, Label: "log writes", Better: Lower},
	{Name: "page_merge_attempts", Levels: db, Unit: Count, Label: "page merge attempts", Better: Lower},
	{Name: "pages_touched", Levels: tbIx, Unit: Pages, Label: "pages touched", Better: Lower},
	{Name: "physical_writes", Levels: tbIx, Unit: Count, Label: "physical writes", Better: Lower},
	{Name: "redo_wastage_bytes", Levels: db, Unit: Bytes, Label: "redo wastage bytes", Better: Lower},
	{Name: "row_lock_wait_ms", Levels: ix, Unit: Millis, Label: "row lock wait time", Better: Lower},
	{Name: "scans", Levels: ix, Unit: Count, Label: "scans", Better: Neither, Show: JSONOnly},
	{Name: "size_pages", Levels: ix, Unit: Pages, Label: "size pages", Better: Lower, Negative: true},
	{Name: "transactions_rolled_back", Levels: db, Unit: Count, Label: "transactions rolled back", Better: Neither, Show: JSONOnly},
	{Name: "tuples_fetched", Levels: ix, Unit: Count, Label: "tuples fetched", Better: Neither, Show: JSONOnly},
	{Name: "tuples_read", Levels: ix, Unit: Count, Label: "tuples read", Better: Neither, Show: JSONOnly},
	{Name: "undo_bytes", Levels: db, Unit: Bytes, Label: "undo bytes", Better: Lower},
	{Name: "vacuum_runs", Levels: tb, Unit: Count, Label: "vacuum runs", Better: Neither, Show: JSONOnly, Total: true},
	// The wait samplers' bookkeeping: how many samples the shares rest on,
	// and the mean number of the workload's sessions active in them.
	{Name: "wait_samples", Levels: db, Unit: Count, Label: "wait samples", Better: Neither, Total: true},
	{Name: "active_sessions", Levels: db, Unit: Count, Label: "active sessions (mean of the samples)", Better: Neither, Total: true},
	{Name: "wal_buffers_full", Levels: db, Unit: Count, Label: "wal buffers full", Better: Lower, Show: JSONOnly},
}

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

var byName = func() map[string]Info {
	m := map[string]Info{}
	for i := range catalogue {
		catalogue[i].Order = i
		m[catalogue[i].Name] = catalogue[i]
	}
	return m
}()

// Lookup returns a metric's catalogue entry, false for a name writeamp does
// not write (a result from a newer writeamp may hold one: show it, as a count).
func Lookup(name string) (Info, bool) {
	if i, ok := byName[name]; ok {
		return i, true
	}
	if i, ok := shareInfo(name); ok {
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
func Catalogue() []Info { return append([]Info(nil), catalogue...) }

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
