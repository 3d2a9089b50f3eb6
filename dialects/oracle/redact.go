package oracle

import "github.com/writeamp/writeamp/dialects"

// passwordKeys are the query parameters that carry a password.
var passwordKeys = []string{"password", "pwd", "wallet password"}

// Redact hides the password of a DSN; it works on DSNs url.Parse rejects
// too, since those are the ones that end up in parse errors.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string { return dialects.RedactURL(dsn, passwordKeys...) }

// redactText removes a DSN's password from an error text wherever it
// appears, raw or URL-escaped.
func redactText(text, dsn string) string {
	return dialects.Scrub(text, dialects.URLPasswords(dsn, passwordKeys...)...)
}
