package dialects

// OwnStatements is implemented by a dialect whose statement view records
// a statement's text in a form of its own (constants replaced, names
// normalised): it tells writeamp's own reads from the workload's
// statements in that form, which only the dialect knows.
type OwnStatements interface {
	OwnStatement(text string) bool
}

// OwnStatement reports whether text, as the named dialect's statement view
// recorded it, is one of writeamp's own statements; false for a dialect
// that is not built in or cannot tell (the caller then compares tokens).
func OwnStatement(dialect, text string) bool {
	o, err := optional[OwnStatements](dialect, "")
	return err == nil && o.OwnStatement(text)
}
