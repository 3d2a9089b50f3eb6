package sqlserver

import (
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// passwordKeys are the connection-string keys that carry a password.
var passwordKeys = []string{"password", "pwd"}

// Redact hides the password of a DSN in any of go-mssqldb's forms, found by
// the form's structure: sqlserver:// URL, odbc:key={value};..., or ADO
// key=value;... with "quoted" values.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string {
	lower := strings.ToLower(dsn)
	switch {
	case strings.Contains(dsn, "://"):
		return dialects.RedactURL(dsn, passwordKeys...)
	case strings.HasPrefix(lower, "odbc:"):
		return dsn[:5] + redactPairs(dsn[5:], '{', '}')
	}
	return redactPairs(dsn, '"', '"')
}

// redactPairs masks the password values of key=value pairs separated by ';'
// as the driver splits them: a ';' inside open..close (doubled close = a
// literal one) belongs to the value. A value whose quote never closes runs
// to the end, so it is masked whatever its key: it may hold the password.
func redactPairs(s string, open, close byte) string {
	var out []string
	start, in := 0, false
	flush := func(end int, unterminated bool) {
		part := s[start:end]
		k, _, has := strings.Cut(part, "=")
		if has && (unterminated || dialects.IsPasswordKey(k, passwordKeys)) {
			part = k + "=" + dialects.Mask
		}
		out = append(out, part)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == close && i+1 < len(s) && s[i+1] == close:
			i++
		case in && c == close:
			in = false
		case !in && c == open:
			in = true
		case !in && c == ';':
			flush(i, false)
			start = i + 1
		}
	}
	flush(len(s), in)
	return strings.Join(out, ";")
}

// QuoteIdent implements dialects.Quoter.
func (Dialect) QuoteIdent(s string) string { return QuoteIdent(s) }
