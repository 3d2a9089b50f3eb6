package sqlserver

import "github.com/writeamp/writeamp/dialects"

// The optional interfaces this dialect implements, asserted here: a
// renamed method fails to compile instead of silently dropping the
// capability (callers find them by type assertion).
var (
	_ dialects.Dialect               = Dialect{}
	_ dialects.Identifiers           = Dialect{}
	_ dialects.Quoter                = Dialect{}
	_ dialects.RetryClassifier       = Dialect{}
	_ dialects.LockTimeoutClassifier = Dialect{}
	_ dialects.Confiner              = Dialect{}
	_ dialects.UserOpener            = Dialect{}
)
