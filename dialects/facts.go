package dialects

// LogName is what the dialect calls its log in sentences ("WAL", "redo",
// "transaction log"), "log" for a dialect this writeamp does not know (a
// result file from another build).
func LogName(name string) string {
	if d, ok := Get(name); ok {
		if n, ok := d.(interface{ LogName() string }); ok {
			return n.LogName()
		}
	}
	return "log"
}

// SchemasAreDatabases says a schema is a database of its own, server-wide
// (MySQL/MariaDB): one connection sees every database on the server, so a
// scope or an undo record must be held to the DSN's database explicitly,
// where elsewhere the connection itself is.
func SchemasAreDatabases(name string) bool {
	if d, ok := Get(name); ok {
		if n, ok := d.(interface{ SchemasAreDatabases() bool }); ok {
			return n.SchemasAreDatabases()
		}
	}
	return false
}
