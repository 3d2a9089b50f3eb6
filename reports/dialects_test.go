package reports

// The sentences name each dialect's log as the dialect calls it
// (dialects.LogName), which needs the dialects registered, as the binary
// registers them.
import (
	_ "github.com/writeamp/writeamp/dialects/mysql"
	_ "github.com/writeamp/writeamp/dialects/oracle"
	_ "github.com/writeamp/writeamp/dialects/postgres"
	_ "github.com/writeamp/writeamp/dialects/sqlserver"
)
