package result

// Statement is what one of the server's normalised statements did in a
// window, from its per-statement statistics (pg_stat_statements,
// performance_schema digests, ...). The fields are flat so a reader finds
// a statement's rows and log bytes beside its text.
type Statement struct {
	Text string `json:"text"`
	// Key is the view's identity of the entry (e.g. queryid/userid/toplevel).
	Key      string `json:"key"`
	Calls    Metric `json:"calls"`
	Rows     Metric `json:"rows"`
	LogBytes Metric `json:"log_bytes"`
	// Other holds the rest of the view's columns (log_records, fpi_count,
	// exec_ms, rows_examined, tmp_tables, ...), by the same names.
	Other map[string]Metric `json:"metrics,omitempty"`
	// Predicted is writeamp explain's prediction for the statement (HOT,
	// index entries per row) and how it compares with the window's
	// per-index counts (table-level where several statements wrote a table).
	Predicted *Predicted `json:"predicted,omitempty"`
}

// Predicted is a statement's explain prediction beside what was measured.
type Predicted struct {
	Table         string  `json:"table"`
	HOT           string  `json:"hot,omitempty"`
	EntriesPerRow float64 `json:"index_entries_per_row"`
	// AtMost: a partial index is among them, so EntriesPerRow is a bound.
	AtMost     bool     `json:"at_most,omitempty"`
	Indexes    []string `json:"indexes,omitempty"`
	Comparison string   `json:"comparison,omitempty"`
}

// Statements is the per-statement section of a run.
type Statements struct {
	// View names where they were read.
	View string `json:"view"`
	// Top are the statements run in the window, most log bytes first (most
	// rows first where the view has no per-statement log).
	Top []Statement `json:"top"`
	// More is how many further statements ran in the window but are not listed.
	More int `json:"more,omitempty"`
	// Observer is how many entries were writeamp's own reads (its snapshot
	// queries), left out of Top; their log bytes are none.
	Observer int `json:"observer_statements,omitempty"`
	// Merge says how the view merges statements into one entry.
	Merge string `json:"merge,omitempty"`
	// LogBytes is the sum of every statement's log bytes in the window,
	// Remainder the window's log not attributed to any (and why).
	LogBytes  *Metric `json:"log_bytes,omitempty"`
	Remainder *Metric `json:"log_bytes_remainder,omitempty"`
	// Where the view keeps no per-statement log (performance_schema's
	// digests): Rows is the sum of the statements' rows affected,
	// RowsInScope the rows the window's tables in scope counted written,
	// and RowsRemainder their difference (signed, and why).
	Rows          *Metric `json:"rows,omitempty"`
	RowsInScope   *Metric `json:"rows_in_scope,omitempty"`
	RowsRemainder *Metric `json:"rows_remainder,omitempty"`
	// Notes qualify every figure of the section, e.g. that the view cannot
	// say whether it evicted entries in the window.
	Notes []string `json:"notes,omitempty"`
}
