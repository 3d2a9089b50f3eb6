// Package sqlparse reads migration and workload SQL the way each server's
// own client would: it splits a script into the statements to send, reads
// which indexes a statement creates and which columns an UPDATE sets, and
// inverts the DDL it can prove invertible.
//
// PostgreSQL text goes through PostgreSQL's own parser (libpg_query, run as
// WebAssembly by github.com/wasilibs/go-pgquery, so builds stay pure Go).
// MySQL/MariaDB, SQL Server and Oracle are split by a lexer that follows
// their clients' rules (mysql, sqlcmd, SQL*Plus); see README "check".
package sqlparse
