package restore

// State is how a check left the database, as a value the report,
// the exit code and the tests branch on (never on the wording).
type State int

const (
	// None: nothing was applied yet.
	None State = iota
	// Kept: --keep-migration, the migration stays as asked.
	Kept
	// AsItWas: undone, and the catalog and the rows compared equal.
	AsItWas
	// Refused: an undo would have touched what the migration did not
	// create; it was not run (or rolled back), and nothing that could be
	// proved put the database back.
	Refused
	// Failed: the undo ran, and the database differs from before.
	Failed
	// Unproven: the comparison could not be made.
	Unproven
)

func (s State) String() string {
	return [...]string{"none", "kept", "as-it-was", "refused", "not-restored", "unproven"}[s]
}

// MarshalText writes the state by name in the JSON document.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UndoKind is what undoes a step: typed, so the report's wording is not
// what the code branches on.
type UndoKind int

const (
	UndoGooseDown UndoKind = iota // a goose "-- +goose Down" section
	UndoDownFile                  // NAME.down.sql beside the file
	UndoDownFlag                  // --down FILE|DIR for the whole migration
	UndoInverse                   // computed from the statements (or, on PostgreSQL, the catalog difference)
)
