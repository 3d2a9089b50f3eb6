package postgres

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// EnterSchema puts schema first on conn's search_path (public after it,
// for extensions' functions) and RESET puts it back.
func (Dialect) EnterSchema(ctx context.Context, conn *sql.Conn, s dialects.Server, schema string) (func(context.Context) error, error) {
	set, err := queries.Get(Name, "set_search_path", s.VersionNum)
	if err != nil {
		return nil, err
	}
	reset, err := queries.Get(Name, "reset_search_path", s.VersionNum)
	if err != nil {
		return nil, err
	}
	if err := dialects.ConnExec(ctx, conn, "set search_path", set, schema+", public"); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return dialects.ConnExec(ctx, conn, "reset search_path", reset) }, nil
}

func (Dialect) HowSchemaEntered() string { return "search_path" }
