package dialects

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// Passwords must never reach output, errors or result files. Redaction goes
// by the DSN's structure: the password field is found where the driver
// finds it and replaced, whatever its characters. Nothing searches a text
// for the password's characters: replacing them wherever they occur leaks
// the password by what is changed ("user=pwuser" with the password "s"
// became "uxxxxxer=pwuxxxxxer").

// Mask stands in for a password.
const Mask = "xxxxx"

// RedactURL hides the password of a URL-form DSN (scheme://user:pw@host...).
// The user info ends at the last '@' (before a password parameter, if the
// query has one), as a password with an unencoded '@', '/', ':' or '?'
// means it to, so everything between the scheme's "user:" and that '@' is
// masked even when the URL does not parse. A query parameter named by keys
// (e.g. "password") is masked with everything after it: an unencoded '&'
// or '#' in its value would otherwise show the rest.
func RedactURL(dsn string, keys ...string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return maskParams(dsn, keys, "&")
	}
	out := scheme + "://"
	limit := len(rest)
	lower := strings.ToLower(rest)
	for _, k := range keys {
		for _, form := range []string{k, url.QueryEscape(k), strings.ReplaceAll(k, " ", "%20")} {
			for _, sep := range []string{"?", "&"} {
				if i := strings.Index(lower, sep+strings.ToLower(form)+"="); i >= 0 && i < limit {
					limit = i
				}
			}
		}
	}
	if at := strings.LastIndexByte(rest[:limit], '@'); at >= 0 {
		out += MaskUserInfo(rest[:at]) + "@"
		rest = rest[at+1:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		return out + rest[:q+1] + maskParams(rest[q+1:], keys, "&")
	}
	return out + rest
}

// MaskUserInfo masks the password of "user:password" user info: everything
// after the first ':' (a user name has none; a password may hold more).
func MaskUserInfo(info string) string {
	if user, _, hasPw := strings.Cut(info, ":"); hasPw {
		return user + ":" + Mask
	}
	return info
}

// maskParams masks the value of the first key=value parameter (separated by
// sep) whose key is a password key, and drops what follows it.
func maskParams(query string, keys []string, sep string) string {
	parts := strings.Split(query, sep)
	for i, p := range parts {
		k, _, has := strings.Cut(p, "=")
		if has && IsPasswordKey(k, keys) {
			parts[i] = k + "=" + Mask
			return strings.Join(parts[:i+1], sep)
		}
	}
	return query
}

// IsPasswordKey reports whether a parameter name is one of keys, ignoring
// case, surrounding space and URL escaping.
func IsPasswordKey(k string, keys []string) bool {
	k = strings.TrimSpace(k)
	if u, err := url.QueryUnescape(k); err == nil {
		k = u
	}
	for _, x := range keys {
		if strings.EqualFold(k, x) {
			return true
		}
	}
	return false
}

// quoted matches what error texts quote: "…" (Go's %q, with \" inside),
// `…` and '…'. Drivers quote the DSN or a piece of it there.
var quoted = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|'[^']*'")

// ParseErrorText is a driver's complaint about a DSN it could not parse,
// with every quoted fragment removed: a DSN that did not parse has no
// structure to find its password by, so no part of it is echoed.
func ParseErrorText(err error) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error() // the URL itself is in ue.URL, never shown
	}
	msg = quoted.ReplaceAllString(msg, "…")
	// An unquoted URL echo (some drivers print it bare) goes too.
	if i := strings.Index(msg, "://"); i >= 0 {
		msg = msg[:strings.LastIndexAny(msg[:i], " \t:")+1] + "…"
	}
	return msg
}
