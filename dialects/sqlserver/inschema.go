package sqlserver

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// EnterSchema creates a user without login whose default schema is the
// workload's and runs as it (EXECUTE AS): SQL Server has no per-session
// default schema. Leaving REVERTs and drops the user.
func (Dialect) EnterSchema(ctx context.Context, conn *sql.Conn, s dialects.Server, schema string) (func(context.Context) error, error) {
	var q [4]string
	for i, name := range []string{"schema_user_create", "schema_user_enter", "schema_user_leave", "schema_user_drop"} {
		var err error
		if q[i], err = queries.Get(Name, name, s.VersionNum); err != nil {
			return nil, err
		}
	}
	create, enter, back, drop := q[0], q[1], q[2], q[3]
	dropUser := func(ctx context.Context) error {
		return dialects.ConnExec(ctx, conn, "drop the user the migration ran as", dialects.FillSchema(drop, schema))
	}
	if err := dialects.ConnExec(ctx, conn, "create a user without login whose default schema is the workload's (needs ALTER ANY USER and ALTER ANY ROLE, or db_owner)", dialects.FillSchema(create, schema)); err != nil {
		dropUser(context.WithoutCancel(ctx)) // half-created: the user may exist without its roles
		return nil, err
	}
	if err := dialects.ConnExec(ctx, conn, "EXECUTE AS the workload's user", dialects.FillSchema(enter, schema)); err != nil {
		dropUser(context.WithoutCancel(ctx))
		return nil, err
	}
	return func(ctx context.Context) error {
		err := dialects.ConnExec(ctx, conn, "REVERT", back)
		if derr := dropUser(ctx); err == nil {
			err = derr
		}
		return err
	}, nil
}

func (Dialect) HowSchemaEntered() string { return "EXECUTE AS a user whose default schema it is" }

func (Dialect) LogName() string { return "transaction log" }
