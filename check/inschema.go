package check

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
)

// inSchema makes unqualified names on conn mean the built-in workload's
// own schema, so a migration written for the application's tables
// (CREATE INDEX … ON one of its tables …) applies to the workload's copy
// of them, and returns what puts conn back. Each dialect has its own way
// (dialects.SchemaEnterer; its statements in queries/<dialect>/check.sql):
//
//	PostgreSQL  search_path = schema, public
//	MySQL       USE schema (the workload's schema is a database)
//	Oracle      ALTER SESSION SET CURRENT_SCHEMA (the workload's user)
//	SQL Server  EXECUTE AS a user without login whose default schema it is
func (g *Gate) inSchema(ctx context.Context, conn *sql.Conn, schema string) (leave func(context.Context) error, err error) {
	e, err := dialects.SchemaEntererOf(g.server().Dialect)
	if err != nil {
		return nil, err
	}
	return e.EnterSchema(ctx, conn, g.server(), schema)
}

// howInSchema names how inSchema works on the gate's server, for reports.
func (g *Gate) howInSchema() string {
	if _, err := dialects.ConfinerOf(g.server().Dialect); err == nil && g.OpenAs != nil {
		return "as a login created for the run that owns only that schema"
	}
	if e, err := dialects.SchemaEntererOf(g.server().Dialect); err == nil {
		return e.HowSchemaEntered()
	}
	return "no way on " + g.server().Dialect
}
