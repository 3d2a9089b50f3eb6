package sqlserver

import (
	"net/url"
	"regexp"
	"strings"
)

// The password may sit in the URL's user info or in a query parameter
// ("password", "pwd"); ADO-style strings use "password=...;".
var (
	userInfoPassword = regexp.MustCompile(`(://[^:/@?#]*:)([^@]*)(@)`)
	paramPassword    = regexp.MustCompile(`(?i)((?:^|[?&;\s])(?:password|pwd)\s*=\s*)([^&;]*)`)
)

// Redact hides the password of a DSN; it works on DSNs url.Parse rejects
// too, since those are the ones that end up in parse errors.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Opaque == "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		for k := range q {
			if strings.EqualFold(k, "password") || strings.EqualFold(k, "pwd") {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	out := userInfoPassword.ReplaceAllString(dsn, "${1}xxxxx${3}")
	return paramPassword.ReplaceAllString(out, "${1}xxxxx")
}

// redactText removes a DSN's password from an error text wherever it
// appears, raw or URL-escaped.
func redactText(text, dsn string) string {
	for _, pw := range passwords(dsn) {
		if len(pw) > 0 {
			text = strings.ReplaceAll(text, pw, "xxxxx")
		}
	}
	return text
}

func passwords(dsn string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
		if u, err := url.PathUnescape(p); err == nil {
			out = append(out, u)
		}
	}
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			if strings.EqualFold(k, "password") || strings.EqualFold(k, "pwd") {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	if m := userInfoPassword.FindStringSubmatch(dsn); m != nil {
		add(m[2])
	}
	for _, m := range paramPassword.FindAllStringSubmatch(dsn, -1) {
		add(m[2])
	}
	return out
}
