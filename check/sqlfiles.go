package check

import "github.com/writeamp/writeamp/check/sqlfile"

// File is one SQL file; it lives in package sqlfile, below both check and
// the restore, which counts how far each file was applied.
type File = sqlfile.File
