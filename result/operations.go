package result

// OperationCosts is a built-in workload's in-scope log split by operation:
// each record the window's log_bytes_in_scope counts belongs to the
// operation whose transaction wrote it (PostgreSQL: the transaction id each
// operation read inside its own transaction, matched to the decoded WAL), or
// to Unattributed. The operations and Unattributed sum to the window's
// in-scope log exactly.
type OperationCosts struct {
	Source     string          `json:"source"`
	Operations []OperationCost `json:"operations"`
	// Unattributed are the in-scope records of no transaction the workload
	// named: records without a transaction id (on-access pruning, a
	// vacuum), aborted attempts of retried operations, other sessions.
	Unattributed *OperationCost `json:"unattributed,omitempty"`
	// LogBytes is the sum over Operations and Unattributed; InScope the
	// window's log_bytes_in_scope it equals.
	LogBytes Metric `json:"log_bytes_sum"`
	InScope  Metric `json:"log_bytes_in_scope"`
	// Overhead says what reading the transaction ids cost the workload.
	Overhead string `json:"overhead,omitempty"`
}

// OperationCost is what one operation's transactions wrote in the window.
type OperationCost struct {
	Operation string `json:"operation"`
	// Count is the operations the driver counted (0 for Unattributed);
	// Transactions how many of their transactions wrote in-scope records
	// (an operation that wrote nothing has none).
	Count        int64 `json:"count,omitempty"`
	Transactions int64 `json:"transactions"`
	// Metrics are totals over the window: log_bytes, log_records,
	// fpi_bytes, fpi_count, leaf_inserts.
	Metrics map[string]Metric `json:"metrics"`
	// Objects are the same per table and index (and "" for the commit
	// records, which belong to no relation), most log bytes first.
	Objects []OperationObject `json:"objects,omitempty"`
}

// OperationObject is what one operation wrote to one table or index.
type OperationObject struct {
	// Level is "table", "index", or "" for records of no relation.
	Level   string            `json:"level,omitempty"`
	Name    string            `json:"name,omitempty"`
	Metrics map[string]Metric `json:"metrics"`
}
