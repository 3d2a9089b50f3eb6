package postgres

import (
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// passwordKeys are libpq's keywords that carry a secret: the login
// password, and the one that decrypts the client key.
var passwordKeys = []string{"password", "sslpassword"}

// Redact hides the passwords of a URL or libpq key=value DSN, found by the
// DSN's structure.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the passwords of a URL or libpq key=value DSN.
func Redact(dsn string) string {
	switch {
	case dsn == "":
		return "(PG* environment)"
	case strings.Contains(dsn, "://"):
		return dialects.RedactURL(dsn, passwordKeys...)
	}
	out, ok := redactKeywordValue(dsn)
	if !ok {
		return "(a key=value connection string that does not parse; not shown)"
	}
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// redactKeywordValue reads a conninfo string by libpq's rules (keyword,
// optional space, '=', optional space, then a value that is either
// single-quoted with \' and \\ escapes, or runs to the next space with
// backslash escapes) and writes it back with every password value replaced.
// Other values keep their original text. ok is false when the string does
// not parse: an unterminated quote, a keyword without '='.
func redactKeywordValue(s string) (string, bool) {
	var b strings.Builder
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return strings.TrimSpace(b.String()), true
		}
		k := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' {
			i++
		}
		key := s[k:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if key == "" || i == len(s) || s[i] != '=' {
			return "", false
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		v := i
		if i < len(s) && s[i] == '\'' {
			i++
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return "", false
			}
			i++ // the closing quote
		} else {
			for ; i < len(s) && !isSpace(s[i]); i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i, len(s))
		}
		val := s[v:i]
		if dialects.IsPasswordKey(key, passwordKeys) {
			val = dialects.Mask
		}
		b.WriteString(key + "=" + val + " ")
	}
}

// QuoteIdent implements dialects.Quoter.
func (Dialect) QuoteIdent(s string) string { return QuoteIdent(s) }

// QuoteLiteral implements dialects.LiteralQuoter.
func (Dialect) QuoteLiteral(s string) string { return QuoteLiteral(s) }
