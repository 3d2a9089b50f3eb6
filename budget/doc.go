// Package budget is the small grammar `writeamp check` gates a migration
// with, and its evaluation against a "before" and an "after" run.
//
// Grammar (spaces around the parts are allowed):
//
//	BUDGET    = METRIC ["/op"] ["[" OBJECT "]"] CMP THRESHOLD
//	METRIC    = [a-z][a-z0-9_]*            a metric of the catalogue (result.Lookup): log_bytes, hot_ratio,
//	            ["." [a-z0-9_]+]           leaf_inserts ..., or a wait event: waits.writelog, waits.writelog_ms
//	"/op"     = divide by the run's main operation count (refreshes; rows written for a wrapped command)
//	OBJECT    = a table or index name as the database reports it; without it the budget applies to the
//	            database metric of that name, else to every table (or index) that has the metric
//	CMP       = "<=" | ">=" | "<" | ">"
//	THRESHOLD = "+5%" | "-10%"             relative change, after vs before
//	          | "+0.05" | "-200"           absolute change, after minus before, in the metric's unit
//	          | "0.9" | "90%" | "2KiB"     the after run's value ("%" only for ratio metrics, a byte
//	                                       unit (result.ByteUnits, read by go-humanize) only for byte metrics)
//
// A ratio's value or change is a fraction (at most 1 either way); a byte
// metric's value or change needs its unit (0 excepted). Both are refused
// here, before anything connects, naming the threshold probably meant.
// index_entries is a table's: the leaf inserts of all of its indexes
// (derived.go). An object absent before the migration is judged on its
// after value; a relative change of it is reported as New.
//
// Examples: log_bytes/op<=+5%, hot_ratio>=0.9, hot_ratio[jobs]>=-0.05, leaf_inserts/op[idx_name]<=+0%,
// log_bytes/op<=2KiB.
package budget
