package oracle

import "github.com/writeamp/writeamp/dialects"

// passwordKeys are the URL parameters that carry a password.
var passwordKeys = []string{"password", "pwd", "wallet password", "wallet_password"}

// Redact hides the password of a DSN by its URL structure; it works on DSNs
// url.Parse rejects too, since those are the ones that end up in errors.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string { return dialects.RedactURL(dsn, passwordKeys...) }

// QuoteIdent implements dialects.Quoter.
func (Dialect) QuoteIdent(s string) string { return QuoteIdent(s) }
