package dialects

import "testing"

func TestCheckOfAnUnknownDialectKeepsToTheDefaults(t *testing.T) {
	c := CheckOf("nosuch")
	if _, ok := c.(CheckDefaults); !ok {
		t.Fatalf("CheckOf(unknown) = %T", c)
	}
	if c.QueryArgs(Server{Database: "x"}, "? ?") != nil || c.HashColumns(`"a","b"`) != `"a","b"` || c.QuoteSchema(`a"b`) != `"a""b"` {
		t.Error("defaults bind nothing, hash as listed and quote as ANSI SQL")
	}
	if LogName("nosuch") != "log" || SchemasAreDatabases("nosuch") {
		t.Error("an unknown dialect's log is 'log' and its schemas are not databases")
	}
}
