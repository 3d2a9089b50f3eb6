package dialects_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/dialects/sqlserver"
)

// form is a DSN with its password written the way the form needs it.
type form struct {
	dialect string
	tmpl    string // {} is where the password goes
	enc     func(string) string
}

var (
	raw      = func(s string) string { return s }
	userinfo = func(s string) string { return url.UserPassword("u", s).String()[2:] }
	query    = url.QueryEscape
	// libpq: a single-quoted value escapes ' and \ with a backslash; an
	// unquoted one escapes those and any space.
	kvQuoted = func(s string) string {
		return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
	}
	kvBare = func(s string) string {
		var b strings.Builder
		for _, c := range s {
			if strings.ContainsRune("\\' \t\n\r\v\f", c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	adoQuoted  = func(s string) string { return strings.ReplaceAll(s, `"`, `""`) }
	odbcBraced = func(s string) string { return strings.ReplaceAll(s, "}", "}}") }
)

var forms = []form{
	{"postgres", "postgres://app:{}@db.example:5432/kc?sslmode=disable", raw},
	{"postgres", "postgres://app:{}@db.example:5432/kc?sslmode=disable", userinfo},
	{"postgres", "postgres://app@db.example:5432/kc?sslmode=disable&password={}", raw},
	{"postgres", "postgres://app@db.example:5432/kc?password={}&sslmode=disable", query},
	{"postgres", "host=db.example port=5432 user=app password='{}' dbname=kc", kvQuoted},
	{"postgres", "host=db.example user=app password={} dbname=kc sslmode=disable", kvBare},
	{"postgres", "host=db.example user=app sslpassword='{}' password='{}' dbname=kc", kvQuoted},
	{"mysql", "mysql://app:{}@db.example:3306/kc?tls=false", raw},
	{"mysql", "mysql://app:{}@db.example:3306/kc?tls=false", userinfo},
	{"mysql", "app:{}@tcp(db.example:3306)/kc?timeout=5s", raw},
	{"sqlserver", "sqlserver://sa:{}@db.example:1433?database=kc", raw},
	{"sqlserver", "sqlserver://sa:{}@db.example:1433?database=kc", userinfo},
	{"sqlserver", `server=db.example;user id=sa;password="{}";database=kc`, adoQuoted},
	{"sqlserver", "odbc:server=db.example;uid=sa;pwd={{}};database=kc", odbcBraced},
	{"oracle", "oracle://system:{}@db.example:1521/FREEPDB1?SSL=false", raw},
	{"oracle", "oracle://system:{}@db.example:1521/FREEPDB1", userinfo},
}

var redactors = map[string]func(string) string{
	"postgres": postgres.Redact, "mysql": mysql.Redact, "sqlserver": sqlserver.Redact, "oracle": oracle.Redact,
}

// parsers return the error writeamp shows for a DSN its driver rejects.
var parsers = map[string]func(string) error{
	"postgres":  func(d string) error { _, err := postgres.Config(d); return err },
	"mysql":     func(d string) error { _, err := mysql.Config(d); return err },
	"sqlserver": func(d string) error { _, err := sqlserver.Config(d); return err },
}

// sameShape keeps a password's structure (punctuation, length, which bytes
// are hex digits) and changes every letter and digit, so a DSN with it
// parses the same way but shows different characters.
func sameShape(pw string) string {
	b := []byte(pw)
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			b[i] = '7'
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			b[i] = 'a'
		case c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z':
			b[i] = 'x'
		}
	}
	return string(b)
}

// FuzzRedactDSN draws passwords from the DSN's own characters (a password
// like "s", "app" or "5432" occurs in the DSN elsewhere) in every form each
// dialect accepts, raw or encoded as the form needs. The redacted DSN must
// not depend on the password at all, and an error about a DSN that does
// not parse must not show any of the password's letters or digits.
func FuzzRedactDSN(f *testing.F) {
	f.Add(uint8(0), []byte{1, 2, 3})
	f.Add(uint8(4), []byte("it's\"q%20x"))
	f.Add(uint8(2), []byte{9})
	f.Fuzz(func(t *testing.T, which uint8, seed []byte) {
		fm := forms[int(which)%len(forms)]
		alphabet := strings.ReplaceAll(fm.tmpl, "{}", "")
		if len(seed) == 0 || len(seed) > 40 {
			return
		}
		pw := make([]byte, len(seed))
		for i, s := range seed {
			pw[i] = alphabet[int(s)%len(alphabet)]
		}
		dsn := func(p string) string { return strings.ReplaceAll(fm.tmpl, "{}", fm.enc(p)) }
		redact := redactors[fm.dialect]
		if got, ref := redact(dsn(string(pw))), redact(dsn("zzzz")); got != ref {
			t.Fatalf("%s: Redact(%q) = %q depends on the password %q (with zzzz: %q)", fm.dialect, dsn(string(pw)), got, pw, ref)
		}
		if parse := parsers[fm.dialect]; parse != nil {
			e1, e2 := parse(dsn(string(pw))), parse(dsn(sameShape(string(pw))))
			// Digits can move a port in or out of range: only two errors
			// are comparable.
			if e1 != nil && e2 != nil && e1.Error() != e2.Error() {
				t.Fatalf("%s: the error for %q shows the password %q:\n%v\nwith %q:\n%v", fm.dialect, dsn(string(pw)), pw, e1, sameShape(string(pw)), e2)
			}
		}
	})
}

var _ = dialects.Mask
