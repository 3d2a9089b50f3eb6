package restore

import "github.com/writeamp/writeamp/check/sqlfile"

// File is one SQL file the restore undoes, counting how far it was applied.
type File = sqlfile.File
