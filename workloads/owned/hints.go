package owned

import (
	"errors"
	"fmt"
	"strings"
)

// ddlGrants say, per dialect, what lets a workload create its own schema;
// Explain fills in the user, database and host of the connection.
var ddlGrants = map[string]string{
	"postgres":  "GRANT CREATE ON DATABASE <db> TO <user>",
	"mysql":     "GRANT CREATE, DROP, ALTER, INDEX, INSERT, UPDATE, DELETE, SELECT ON *.* TO <grantee> (the workload creates its own database)",
	"sqlserver": "GRANT CREATE SCHEMA, CREATE TABLE TO <user>, and ALTER on the schema it creates (or membership in db_ddladmin)",
	"oracle":    "GRANT CREATE USER, DROP USER, CREATE ANY TABLE, CREATE ANY INDEX, SELECT/INSERT/UPDATE/DELETE ANY TABLE TO <user>; the workload's own user gets QUOTA UNLIMITED on the default permanent tablespace from its CREATE USER (see queries/oracle/refresh_token.sql)",
}

// readOnlyFix says how a read-only session gets its writes back.
var readOnlyFix = map[string]string{
	"postgres": "the session is read-only (default_transaction_read_only = on for <user> or database <db>, or a standby): ALTER ROLE <user> SET default_transaction_read_only = off, or ALTER DATABASE <db> SET default_transaction_read_only = off, whichever set it (writeamp doctor says which)",
	"mysql":    "the server or session is read-only (read_only, super_read_only or transaction_read_only = ON): point --dsn at the primary, or as an administrator SET GLOBAL read_only = OFF",
}

// names fills a fix text with the connection's own names.
func (o *Schemas) names(text string) string {
	s := o.t.Server
	quote := func(s string) string { return s }
	switch s.Dialect {
	case "postgres":
		quote = func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	case "sqlserver":
		quote = func(s string) string { return "[" + strings.ReplaceAll(s, "]", "]]") + "]" }
	}
	r := []string{}
	if s.User != "" {
		r = append(r, "<user>", quote(s.User))
	}
	if s.Database != "" {
		r = append(r, "<db>", quote(s.Database))
	}
	if g := s.Prop("grantee"); g != "" {
		r = append(r, "<grantee>", g)
	}
	return strings.NewReplacer(r...).Replace(text)
}

// Explain adds the statement that fixes a refused CREATE, with the user's
// and database's names filled in.
func (o *Schemas) Explain(err error) error {
	d := o.t.Server.Dialect
	msg := strings.ToLower(err.Error())
	var st interface{ SQLState() string }
	readOnly := errors.As(err, &st) && st.SQLState() == "25006" || strings.Contains(msg, "read-only") || strings.Contains(msg, "read only") || strings.Contains(msg, "error 1290") || strings.Contains(msg, "error 1792")
	if fix, ok := readOnlyFix[d]; ok && readOnly {
		return fmt.Errorf("%w (%s)", err, o.names(fix))
	}
	if !strings.Contains(msg, "permission denied") && !strings.Contains(msg, "denied") && !strings.Contains(msg, "insufficient privileges") && !strings.Contains(msg, "ora-01031") {
		return err
	}
	if g, ok := ddlGrants[d]; ok {
		return fmt.Errorf("%w (the workload needs to create its own schema: %s)", err, o.names(g))
	}
	return err
}
