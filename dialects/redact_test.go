package dialects

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"sqlserver://sa:p%40ss@h:1433?database=kc":     "sqlserver://sa:xxxxx@h:1433?database=kc",
		"oracle://u@h:1521/svc?password=x1y2":          "oracle://u@h:1521/svc?password=xxxxx",
		"sqlserver://sa:bad pw@h:notaport?database=kc": "sqlserver://sa:xxxxx@h:notaport?database=kc",
		"postgres://nobody@h/db":                       "postgres://nobody@h/db",
		// An unencoded password: the user info still ends at the last '@'.
		"postgres://u:p@ss:w/rd%@host/db": "postgres://u:xxxxx@host/db",
		"postgres://u:12/ss@host/db":      "postgres://u:xxxxx@host/db",
		"postgres://u:a?b#c@host/db?x=1":  "postgres://u:xxxxx@host/db?x=1",
		// A password parameter hides everything after it: an unencoded '&'
		// in its value cannot be told from the next parameter.
		"postgres://u@h/db?sslmode=off&password=a&b=c": "postgres://u@h/db?sslmode=off&password=xxxxx",
		"postgres://u@h/db?password=a@b&sslmode=off":   "postgres://u@h/db?password=xxxxx",
		"oracle://u@h/s?wallet+password=x":             "oracle://u@h/s?wallet+password=xxxxx",
	} {
		if got := RedactURL(in, "password", "pwd", "wallet password"); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// Redaction never replaces the password's characters elsewhere: with the
// password "s", "user=pwuser" used to come back as "uxxxxxer=pwuxxxxxer".
func TestRedactTouchesOnlyThePasswordField(t *testing.T) {
	t.Parallel()
	got := RedactURL("postgres://pwuser:s@hosts/dbs?sslmode=disable", "password")
	if got != "postgres://pwuser:xxxxx@hosts/dbs?sslmode=disable" {
		t.Errorf("got %q", got)
	}
}

func TestParseErrorTextShowsNoPartOfTheDSN(t *testing.T) {
	t.Parallel()
	_, err := url.Parse("postgres://u:p@ss:w/rd%@host/db") //nolint:staticcheck // SA1007: the URL must not parse: the test needs url.Parse's error, which quotes it
	if err == nil {
		t.Fatal("expected a parse error")
	}
	for _, e := range []error{err, errors.New(`invalid port "w" after host`), errors.New("cannot parse `postgres://u:p@ss@h`: bad"),
		errors.New("failed: postgres://u:p@ss@h/db is wrong")} {
		got := ParseErrorText(e)
		for _, frag := range []string{"p@ss", "rd%", "ss:w", `"w"`} {
			if strings.Contains(got, frag) {
				t.Errorf("ParseErrorText(%v) = %q shows %q", e, got, frag)
			}
		}
	}
}
