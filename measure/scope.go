package measure

import (
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// AllSchemas as the only --schema value reads every schema (database).
const AllSchemas = "*"

// DefaultScope is the scope measure and snapshot read when --schema is not
// given. A PostgreSQL or SQL Server connection only sees its own database;
// a MySQL/MariaDB one sees every database on the server, so the database the
// DSN names is the default there, as it is elsewhere by construction.
// --schema replaces it, and --schema '*' reads every database.
func DefaultScope(s dialects.Server, sc collectors.Scope) collectors.Scope {
	if len(sc.Schemas) == 1 && sc.Schemas[0] == AllSchemas {
		sc.Schemas = nil
		return sc
	}
	if len(sc.Schemas) == 0 && dialects.SchemasAreDatabases(s.Dialect) && s.Database != "" {
		sc.Schemas = []string{s.Database}
	}
	return sc
}
