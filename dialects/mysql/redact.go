package mysql

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// Redact hides the password of a URL or driver-form DSN.
func (Dialect) Redact(dsn string) string {
	if scheme, _, ok := strings.Cut(dsn, "://"); ok && !strings.Contains(scheme, "@") {
		return redactURL(dsn)
	}
	if pw := password(dsn); pw != "" {
		at := strings.LastIndex(dsn[:addrStart(dsn)], "@")
		colon := strings.Index(dsn[:at], ":")
		return dsn[:colon+1] + "xxxxx" + dsn[at:]
	}
	return dsn
}

var urlUserinfo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://[^:/@]*:)(.*)(@[^@]*)$`)

func redactURL(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		return u.String()
	}
	// Unparseable: cut whatever sits between "user:" and the last "@".
	return urlUserinfo.ReplaceAllString(dsn, "${1}xxxxx${3}")
}

// addrStart is where the driver form's "@net(" begins (or the end).
func addrStart(dsn string) int {
	for _, n := range []string{"@tcp(", "@tcp6(", "@unix(", "@tcp4("} {
		if i := strings.LastIndex(dsn, n); i >= 0 {
			return i + 1
		}
	}
	if i := strings.LastIndex(dsn, "/"); i >= 0 {
		return i
	}
	return len(dsn)
}

// password extracts the password of either DSN form, for scrubbing error texts.
func password(dsn string) string {
	if scheme, _, ok := strings.Cut(dsn, "://"); ok && !strings.Contains(scheme, "@") {
		if u, err := url.Parse(dsn); err == nil {
			p, _ := u.User.Password()
			return p
		}
		if m := urlUserinfo.FindStringSubmatch(dsn); m != nil {
			return m[2]
		}
		return ""
	}
	head := dsn[:addrStart(dsn)]
	at := strings.LastIndex(head, "@")
	if at < 0 {
		return ""
	}
	if _, pw, ok := strings.Cut(head[:at], ":"); ok {
		return pw
	}
	return ""
}

// redactText removes a DSN's password from an error text, wherever it appears.
func redactText(text, dsn string) string { return dialects.Scrub(text, password(dsn)) }
