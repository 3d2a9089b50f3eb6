package mysql

import (
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// Redact hides the password of a URL or driver-form DSN, found where the
// driver finds it: in the driver form user:password@net(addr)/db?params the
// database follows the last '/', the user info ends at the last '@' before
// it, and the password is everything after the user info's first ':'.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string {
	if _, _, ok := urlForm(dsn); ok {
		return dialects.RedactURL(dsn)
	}
	head, tail := dsn, ""
	if slash := strings.LastIndexByte(dsn, '/'); slash >= 0 {
		head, tail = dsn[:slash], dsn[slash:]
	}
	at := strings.LastIndexByte(head, '@')
	if at < 0 {
		return dsn
	}
	return dialects.MaskUserInfo(head[:at]) + head[at:] + tail
}

// QuoteIdent implements dialects.Quoter.
func (Dialect) QuoteIdent(s string) string { return QuoteIdent(s) }
