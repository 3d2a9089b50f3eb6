package sqlserver

import (
	"errors"

	"github.com/writeamp/writeamp/dialects"
)

// Scope says whether a DMV answers for the database or for the whole server:
// the two are granted differently (to the database user, or to the login in
// master).
type Scope int

const (
	DatabaseScope Scope = iota
	ServerScope
)

// Privilege names what a DMV of the scope needs on this server and the
// statement that grants it.
func Privilege(s dialects.Server, sc Scope) (privilege, grant string) {
	perf := supportsPerformanceStatePermissions(s.VersionNum)
	user, login := s.User, s.Prop(PropLogin)
	if login == "" {
		login = user
	}
	if sc == ServerScope && s.Flavor != FlavorAzureSQLDatabase {
		if perf {
			return "VIEW SERVER PERFORMANCE STATE", "USE master; GRANT VIEW SERVER PERFORMANCE STATE TO " + QuoteIdent(login)
		}
		return "VIEW SERVER STATE", "USE master; GRANT VIEW SERVER STATE TO " + QuoteIdent(login)
	}
	db := "USE " + QuoteIdent(s.Database) + "; "
	if s.Flavor == FlavorAzureSQLDatabase || s.Database == "" {
		db = "" // Azure SQL Database has no USE; the grant runs in the database itself
	}
	if perf {
		return "VIEW DATABASE PERFORMANCE STATE", db + "GRANT VIEW DATABASE PERFORMANCE STATE TO " + QuoteIdent(user)
	}
	return "VIEW DATABASE STATE", db + "GRANT VIEW DATABASE STATE TO " + QuoteIdent(user)
}

// Permission errors SQL Server raises on DMVs and catalog views:
// 300 "VIEW SERVER STATE permission was denied on object 'server'...",
// 297 "The user does not have permission to perform this action.",
// 229/230 SELECT denied on an object or column, 262 permission denied in database.
var permissionErrors = map[int32]bool{229: true, 230: true, 262: true, 297: true, 300: true}

// errorNumber is go-mssqldb's mssql.Error, seen through its method so tests
// and wrapped errors work alike.
type errorNumber interface{ SQLErrorNumber() int32 }

// IsPermissionError reports whether err is SQL Server refusing access.
func IsPermissionError(err error) bool {
	var n errorNumber
	return errors.As(err, &n) && permissionErrors[n.SQLErrorNumber()]
}

// AsPrivilegeError turns a permission error into a *dialects.PrivilegeError
// naming the permission and the GRANT; other errors pass through.
func AsPrivilegeError(err error, s dialects.Server, sc Scope) error {
	if err == nil || !IsPermissionError(err) {
		return err
	}
	p, g := Privilege(s, sc)
	return &dialects.PrivilegeError{Privilege: p, Grant: g, Err: err}
}

// Need returns the *dialects.PrivilegeError for a capability the probe found
// missing, nil when it is there or was not probed (the query then tells).
func Need(s dialects.Server, capability string, sc Scope) error {
	if ok, probed := s.Caps[capability]; !probed || ok {
		return nil
	}
	p, g := Privilege(s, sc)
	return &dialects.PrivilegeError{Privilege: p, Grant: g}
}
