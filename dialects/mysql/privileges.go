package mysql

import (
	"errors"
	"strings"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
)

// Grantee turns CURRENT_USER()'s user@host into 'user'@'host' for GRANT texts.
func Grantee(currentUser string) string {
	i := strings.LastIndex(currentUser, "@")
	if i < 0 {
		return "'" + currentUser + "'@'%'"
	}
	return "'" + currentUser[:i] + "'@'" + currentUser[i+1:] + "'"
}

// Access-denied error numbers: 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR (needs a
// global privilege), 1142 ER_TABLEACCESS_DENIED_ERROR, 1143 column, 1044
// ER_DBACCESS_DENIED_ERROR.
var deniedNumbers = map[uint16]bool{1227: true, 1142: true, 1143: true, 1044: true}

// AsPrivilegeError returns a *dialects.PrivilegeError when err is an
// access-denied error, nil otherwise.
func AsPrivilegeError(err error, s dialects.Server, privilege, grant string) *dialects.PrivilegeError {
	if err == nil {
		return nil
	}
	var me *driver.MySQLError
	if errors.As(err, &me) && deniedNumbers[me.Number] {
		return &dialects.PrivilegeError{Privilege: privilege, Grant: grant, Err: err}
	}
	return nil
}
