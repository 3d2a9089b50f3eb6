package oracle

import (
	"errors"
	"strings"

	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/dialects"
)

// PrivilegeFor names what reading a V$ view needs: SELECT_CATALOG_ROLE
// covers them all; a grant on the underlying SYS.V_$ view covers one (V$
// names are public synonyms of the V_$ views, which only SYS can grant).
func PrivilegeFor(s dialects.Server, view string) *dialects.PrivilegeError {
	user := QuoteIdent(strings.ToUpper(s.User))
	if s.User == "" {
		user = "<user>"
	}
	return &dialects.PrivilegeError{
		Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS." + strings.ToUpper(view) + ")",
		Grant:     "GRANT SELECT_CATALOG_ROLE TO " + user + "; or, as SYS: GRANT SELECT ON sys." + view + " TO " + user,
	}
}

// Oracle answers a V$ view the login may not read with ORA-00942 ("table or
// view does not exist"), and a refused statement with ORA-01031.
var permissionCodes = map[int]bool{942: true, 1031: true}

// IsPermissionError reports whether err is Oracle refusing access.
func IsPermissionError(err error) bool {
	if err == nil {
		return false
	}
	var oe *network.OracleError
	if errors.As(err, &oe) {
		return permissionCodes[oe.ErrCode]
	}
	msg := err.Error()
	return strings.Contains(msg, "ORA-00942") || strings.Contains(msg, "ORA-01031")
}

// AsPrivilegeError turns a permission error into a *dialects.PrivilegeError
// naming the grant for the view; other errors pass through.
func AsPrivilegeError(err error, s dialects.Server, view string) error {
	if !IsPermissionError(err) {
		return err
	}
	pe := PrivilegeFor(s, view)
	pe.Err = err
	return pe
}
