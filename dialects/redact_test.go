package dialects

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"sqlserver://sa:p%40ss@h:1433?database=kc":         "sqlserver://sa:xxxxx@h:1433?database=kc",
		"oracle://u@h:1521/svc?password=x1y2":              "oracle://u@h:1521/svc?password=xxxxx",
		"sqlserver://sa:bad pw@h:notaport?database=kc":     "sqlserver://sa:xxxxx@h:notaport?database=kc",
		"server=h;user id=sa;password=secret1;database=kc": "server=h;user id=sa;password=xxxxx;database=kc",
		"postgres://nobody@h/db":                           "postgres://nobody@h/db",
	} {
		if got := RedactURL(in, "password", "pwd"); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrubEscapedForms(t *testing.T) {
	pw := "p@ss word/1"
	text := "login failed for dsn sqlserver://sa:" + url.PathEscape(pw) + "@h (" + url.QueryEscape(pw) + ") " + pw
	if got := Scrub(text, pw); strings.Contains(got, "ss word") || strings.Contains(got, "ss%20word") || strings.Contains(got, "ss+word") {
		t.Errorf("Scrub left a form of the password: %q", got)
	}
}

// FuzzRedactURL: whatever the password, neither the redacted DSN nor a
// scrubbed error quoting the DSN contains it.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"Xq7Secr3tPw", "p@ss:w/rd", "with space", "%41%42", "ünïcødé-pw", "a;b&c=d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		if len(pw) < 6 || strings.ContainsAny(pw, "\x00\n\r") {
			return // short secrets match by accident in any text
		}
		dsn := "sqlserver://sa:" + url.PathEscape(pw) + "@127.0.0.1:1433?database=kc"
		if out := RedactURL(dsn, "password"); strings.Contains(out, pw) || strings.Contains(out, url.PathEscape(pw)) {
			t.Fatalf("RedactURL(%q) = %q keeps the password", dsn, out)
		}
		msg := Scrub("cannot connect to "+dsn+": bad password "+pw, URLPasswords(dsn, "password")...)
		if strings.Contains(msg, pw) {
			t.Fatalf("Scrub kept the password: %q", msg)
		}
	})
}
