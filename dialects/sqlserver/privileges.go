package sqlserver

import (
	"errors"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// Scope says who answers for a DMV and therefore how reading it is granted:
// to the database user, to the login in master, or, for the instance's own
// figures on Azure SQL Database, only to some principals at all.
type Scope int

const (
	// DatabaseScope: the database's DMVs (sys.dm_db_index_operational_stats).
	DatabaseScope Scope = iota
	// ServerScope: server DMVs granted to the login in master
	// (sys.dm_io_virtual_file_stats); on Azure SQL Database the database
	// permission answers for them.
	ServerScope
	// InstanceScope: the instance's own counters (sys.dm_os_performance_counters,
	// sys.dm_os_wait_stats). On Azure SQL Database Basic, S0, S1 and in elastic
	// pools only the server admin, the Microsoft Entra admin or a member of
	// ##MS_ServerStateReader## may read them; VIEW DATABASE STATE is refused
	// with error 300/297 there.
	// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql#permissions
	InstanceScope
	// DatabaseStateScope: DMVs whose page names VIEW DATABASE STATE itself
	// (sys.dm_db_wait_stats on Azure SQL Database).
	// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-wait-stats-azure-sql-database#permissions
	DatabaseStateScope
)

// restrictedObjectives are the Azure SQL Database service objectives
// (DATABASEPROPERTYEX 'ServiceObjective') on which the instance DMVs need the
// server admin, the Microsoft Entra admin or ##MS_ServerStateReader##.
var restrictedObjectives = map[string]bool{"basic": true, "s0": true, "s1": true, "elasticpool": true}

// RestrictedTier reports whether the server is an Azure SQL Database whose
// service objective keeps the instance DMVs from VIEW DATABASE STATE. An
// unknown objective counts as restricted: nothing is promised.
func RestrictedTier(s dialects.Server) bool {
	if s.Flavor != FlavorAzureSQLDatabase {
		return false
	}
	so := strings.ToLower(strings.TrimSpace(s.Prop(PropServiceObjective)))
	return so == "" || restrictedObjectives[so]
}

// Privilege names what a DMV of the scope needs on this server and the
// statement that grants it, in SQL Server's own words.
func Privilege(s dialects.Server, sc Scope) (privilege, grant string) {
	perf := supportsPerformanceStatePermissions(s.VersionNum)
	user, login := s.User, s.Prop(PropLogin)
	if login == "" {
		login = user
	}
	db := "USE " + QuoteIdent(s.Database) + "; "
	if s.Flavor == FlavorAzureSQLDatabase || s.Database == "" {
		db = "" // Azure SQL Database has no USE; the grant runs in the database itself
	}
	azure := s.Flavor == FlavorAzureSQLDatabase
	switch {
	case sc == InstanceScope && azure && RestrictedTier(s):
		return "the server admin or Microsoft Entra admin, or membership in ##MS_ServerStateReader## (service objective " + objective(s) + ")",
			"in the logical server's master database: ALTER SERVER ROLE ##MS_ServerStateReader## ADD MEMBER " + QuoteIdent(login) + ", or connect as the server admin"
	case sc == InstanceScope && azure, sc == DatabaseStateScope:
		return "VIEW DATABASE STATE", db + "GRANT VIEW DATABASE STATE TO " + QuoteIdent(user)
	case (sc == ServerScope || sc == InstanceScope) && !azure:
		if perf {
			return "VIEW SERVER PERFORMANCE STATE", "USE master; GRANT VIEW SERVER PERFORMANCE STATE TO " + QuoteIdent(login)
		}
		return "VIEW SERVER STATE", "USE master; GRANT VIEW SERVER STATE TO " + QuoteIdent(login)
	}
	if perf {
		return "VIEW DATABASE PERFORMANCE STATE", db + "GRANT VIEW DATABASE PERFORMANCE STATE TO " + QuoteIdent(user)
	}
	return "VIEW DATABASE STATE", db + "GRANT VIEW DATABASE STATE TO " + QuoteIdent(user)
}

func objective(s dialects.Server) string {
	if so := s.Prop(PropServiceObjective); so != "" {
		return so
	}
	return "unknown"
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
