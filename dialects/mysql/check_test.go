package mysql

import (
	"reflect"
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

func TestCheckTraitsBindTheDatabaseAndQuoteEachValue(t *testing.T) {
	c := dialects.CheckOf(Name)
	s := dialects.Server{Dialect: Name, Database: "app"}
	if got := c.QueryArgs(s, "WHERE (? = '' OR FIND_IN_SET(x, ?) > 0)"); !reflect.DeepEqual(got, []any{"app", "app"}) {
		t.Errorf("QueryArgs = %v, want the database for each ?", got)
	}
	if got := c.HashColumns("`a`,`b c`"); got != "QUOTE(`a`),QUOTE(`b c`)" {
		t.Errorf("HashColumns = %q", got)
	}
	if got := c.QuoteSchema("writeamp_undo_`x"); got != "`writeamp_undo_``x`" {
		t.Errorf("QuoteSchema = %q", got)
	}
	if !c.DDLCommitsAtOnce() || c.UndoInTransaction() || !dialects.SchemasAreDatabases(Name) {
		t.Error("MySQL's DDL commits at once, cannot be undone in a transaction, and its schemas are databases")
	}
	if dialects.LogName(Name) != "redo" {
		t.Errorf("LogName = %q", dialects.LogName(Name))
	}
}
