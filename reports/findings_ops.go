package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// What one operation of the built-in workload writes, read from the run's
// per-operation section (result.OperationCosts: the in-scope log split by
// the transaction each operation read), never from the window's total
// divided by a count: the window's per_operation log_bytes includes the
// other operations' log, checkpoints and other sessions, so saying "a
// refresh writes" of it would claim more than was measured.

// OperationSplit is one operation's own log, per operation.
type OperationSplit struct {
	Operation string
	Count     int64
	// LogBytes, IndexBytes and Entries are per operation: every record of
	// its transactions, the part whose first block is an index, and its
	// index entries (leaf inserts). Indexes is how many indexes it wrote.
	LogBytes, IndexBytes, Entries float64
	Indexes                       int
	Exactness                     result.Exactness
	// Note says why the split is not exact ("" when it is).
	Note string
}

// noSplit is why a run has no per-operation section, said the same way in
// the claims and the findings.
const noSplit = "the run has no per-operation section (the log split by the transaction each operation read: the built-in workload, with the log decoded record by record); the window's log divided by the operations holds the other operations' too, so it is not given as one operation's"

// OperationSplitOf returns op's split in r ("refresh" or "refreshes"), or
// why there is none.
func OperationSplitOf(r *result.Run, op string) (OperationSplit, string) {
	oc := r.OperationCosts
	if oc == nil {
		return OperationSplit{}, noSplit
	}
	op = result.Singular(op)
	for _, c := range oc.Operations {
		if c.Operation != op {
			continue
		}
		lb := c.Metrics[result.LogBytes.Name]
		if c.Count <= 0 || !lb.OK() {
			return OperationSplit{}, fmt.Sprintf("the per-operation section has no log for the %s operations (%d counted)", op, c.Count)
		}
		n := float64(c.Count)
		s := OperationSplit{Operation: op, Count: c.Count, LogBytes: lb.V() / n, Exactness: lb.Exactness, Note: oc.LogBytes.Note}
		if s.Exactness == result.Exact && oc.LogBytes.Exactness != result.Exact {
			s.Exactness = oc.LogBytes.Exactness
		}
		for _, o := range c.Objects {
			if o.Level != "index" {
				continue
			}
			if b := o.Metrics[result.LogBytes.Name].V(); b > 0 {
				s.IndexBytes += b / n
				s.Indexes++
			}
			s.Entries += o.Metrics[result.LeafInserts.Name].V() / n
		}
		return s, ""
	}
	return OperationSplit{}, fmt.Sprintf("the per-operation section has no %s operation", op)
}

// Sentence is "a refresh writes 1,210 B of WAL, of which 860 B are index
// entries in 4 indexes" (with the entries per operation, and the
// exactness when it is not exact).
func (s OperationSplit) Sentence(dialect string) string {
	b := func(v float64) string { return result.FormatCount(math.Round(v)) + " B" }
	text := fmt.Sprintf("%s %s writes %s of %s", article(s.Operation), s.Operation, b(s.LogBytes), dialects.LogName(dialect))
	switch s.Indexes {
	case 0:
		text += ", none of it to an index"
	case 1:
		text += fmt.Sprintf(", of which %s are index entries in 1 index (%s entries)", b(s.IndexBytes), result.FormatPerUnitCount(s.Entries))
	default:
		text += fmt.Sprintf(", of which %s are index entries in %d indexes (%s entries)", b(s.IndexBytes), s.Indexes, result.FormatPerUnitCount(s.Entries))
	}
	if s.Exactness != result.Exact {
		text += fmt.Sprintf(" (%s: %s)", s.Exactness, strings.TrimSpace(s.Note))
	}
	return text
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// operationFinding says, per column, what one operation writes of its own
// (the comparison's per-operation unit, else the operation that wrote the
// most); none when no column has a per-operation section, since a finding
// states what was measured and a missing split is no finding (the claims
// say why it is missing).
func operationFinding(c *Comparison, dialect string) (result.Finding, bool) {
	op := c.PerOp
	var parts []string
	e := result.Exact
	var first *float64
	for _, col := range c.Columns {
		oc := col.Run.OperationCosts
		if oc == nil {
			continue
		}
		name := op
		if name == "" && len(oc.Operations) > 0 {
			name = oc.Operations[0].Operation // sorted by log bytes, largest first
		}
		s, why := OperationSplitOf(col.Run, name)
		if why != "" {
			continue
		}
		if first == nil {
			first = ptr(s.LogBytes)
		}
		op = s.Operation
		e = result.Weaker(e, s.Exactness)
		text := s.Sentence(dialect)
		if len(c.Columns) > 1 {
			text = col.Label + ": " + text
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return result.Finding{}, false
	}
	f := result.Finding{Kind: "operation", Metric: result.OperationLogBytes.Name, Level: "run", Object: op, Exactness: e,
		Unit: "per " + op, Text: strings.Join(parts, "; ") + " (from each " + op + "'s own transactions in the decoded log)",
		Rule: "the run's per-operation section: the in-scope log split by the transaction each operation read, divided by the operations counted"}
	if len(c.Columns) == 1 {
		f.Value = first
	}
	return f, true
}
