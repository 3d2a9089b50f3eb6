package dialects

import (
	"net/url"
	"regexp"
	"strings"
)

// Passwords must never reach output, errors or result files. Each dialect
// knows where its DSN forms keep the password; these helpers do the rest.

// The password may sit in the URL's user info or in a query parameter; the
// regular expressions also cover DSNs url.Parse rejects, since those are the
// ones that end up in parse errors.
var (
	userInfoPassword = regexp.MustCompile(`(://[^:/@?#]*:)([^@]*)(@)`)
	paramPassword    = regexp.MustCompile(`(?i)((?:^|[?&;\s])(?:password|pwd|wallet password)\s*=\s*)([^&;]*)`)
)

func isPasswordKey(k string, keys []string) bool {
	for _, x := range keys {
		if strings.EqualFold(k, x) {
			return true
		}
	}
	return false
}

// RedactURL hides the password of a URL-form DSN: in the user info and in
// query parameters named by keys (e.g. "password", "pwd").
func RedactURL(dsn string, keys ...string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Opaque == "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		changed := false
		for k := range q {
			if isPasswordKey(k, keys) {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	out := userInfoPassword.ReplaceAllString(dsn, "${1}xxxxx${3}")
	return paramPassword.ReplaceAllString(out, "${1}xxxxx")
}

// URLPasswords returns the passwords a URL-form DSN carries.
func URLPasswords(dsn string, keys ...string) []string {
	var out []string
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		for k, vs := range u.Query() {
			if isPasswordKey(k, keys) {
				out = append(out, vs...)
			}
		}
	}
	if m := userInfoPassword.FindStringSubmatch(dsn); m != nil {
		out = append(out, m[2])
	}
	for _, m := range paramPassword.FindAllStringSubmatch(dsn, -1) {
		out = append(out, m[2])
	}
	return out
}

// Scrub replaces every secret in text, raw or in its URL-escaped and
// unescaped forms (drivers quote DSNs both ways in their errors).
func Scrub(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms := []string{s, url.QueryEscape(s), url.PathEscape(s)}
		if u, err := url.PathUnescape(s); err == nil {
			forms = append(forms, u)
		}
		for _, f := range forms {
			if f != "" {
				text = strings.ReplaceAll(text, f, "xxxxx")
			}
		}
	}
	return text
}
