package dialects

import (
	"path/filepath"
	"regexp"
	"strings"
)

// A wrapped command's argv is shown in reports, logs and the result JSON
// (`measure -- …`, `check -- …`). People put secrets there the way their
// shells and clients take them: env PGPASSWORD=… psql, MYSQL_PWD=…,
// mysql -p…, sqlcmd -P …, --password=…, a URL with user:password@, a
// libpq conninfo with password=…, or all of it inside sh -c "…". Each form
// is masked by where the secret sits, never by searching for its text.

// secretName is a variable or flag name that holds a secret.
var secretName = regexp.MustCompile(`(?i)pass|pwd|secret|token|credential|api_?key|access_?key|private_?key`)

// envAssign is NAME=value as env(1) and shells read it.
var envAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// In free text (sh -c "…"): NAME=value and --flag=value / --flag value
// whose name is a secret's, URLs, and a MySQL client's -p….
var (
	textAssign  = regexp.MustCompile(`(?i)((?:^|[\s;&|(])[A-Za-z0-9_.-]*(?:pass|pwd|secret|token|credential|api_?key|access_?key|private_?key)[A-Za-z0-9_]*\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s;&|)]+)`)
	textFlag    = regexp.MustCompile(`(?i)((?:^|\s)--?[a-z0-9_-]*(?:pass|pwd|secret|token)[a-z0-9_-]*\s+)('[^']*'|"[^"]*"|[^\s-][^\s;&|)]*)`)
	textURL     = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s'"]+`)
	textMySQLp  = regexp.MustCompile(`((?:^|\s)-p)([^\s;&|)]+)`)
	mysqlInText = regexp.MustCompile(`(?:^|[\s/])(mysql|mariadb)[a-z-]*(?:\s|$)`)
	// SQL in -c/-e: CREATE/ALTER ROLE … PASSWORD '…', IDENTIFIED BY '…'.
	textSQLPassword = regexp.MustCompile(`(?i)((?:password|identified\s+by)\s+)('(?:[^']|'')*')`)
	conninfoStart   = regexp.MustCompile(`^\s*[a-z_]+\s*=`)
)

// RedactArgv returns argv with every secret masked (see above). argv itself
// is not changed.
func RedactArgv(argv []string) []string {
	out := make([]string, len(argv))
	mysqlClient, sqlcmd, maskNext := false, false, false
	for i, a := range argv {
		base := filepath.Base(a)
		if strings.HasPrefix(base, "mysql") || strings.HasPrefix(base, "mariadb") {
			mysqlClient = true // mysql, mysqldump, mariadb-admin …: -p… is the password
		}
		if base == "sqlcmd" {
			sqlcmd = true
		}
		switch {
		case maskNext && !strings.HasPrefix(a, "-"):
			out[i] = Mask
		case isConninfo(a):
			out[i] = redactText(a, false)
		case envAssign.MatchString(a):
			m := envAssign.FindStringSubmatch(a)
			out[i] = m[1] + "=" + redactValue(m[1], m[2])
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			name, v, _ := strings.Cut(a, "=")
			out[i] = name + "=" + redactValue(name, v)
		case mysqlClient && strings.HasPrefix(a, "-p") && len(a) > 2:
			out[i] = "-p" + Mask
		default:
			out[i] = redactText(a, mysqlClient)
		}
		// The value of --password X, -P X (sqlcmd) is the next argument.
		maskNext = strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && secretName.MatchString(a) ||
			sqlcmd && a == "-P"
	}
	return out
}

// redactValue masks the value of a variable or flag called name.
func redactValue(name, v string) string {
	if v == "" {
		return v
	}
	if secretName.MatchString(name) {
		return Mask
	}
	return redactText(v, false)
}

// redactText masks what a free-standing argument or a shell string holds:
// URLs' user info, a conninfo's password, and the forms above.
func redactText(s string, mysqlClient bool) string {
	if !strings.ContainsAny(s, "=:@ -") {
		return s
	}
	if isConninfo(s) {
		if d, ok := Get("postgres"); ok {
			return d.Redact(s) // libpq's own grammar: quotes and escapes
		}
		return "(a connection string with a password; not shown)"
	}
	s = textURL.ReplaceAllStringFunc(s, func(u string) string {
		return RedactURL(u, "password", "sslpassword", "pwd")
	})
	s = textSQLPassword.ReplaceAllString(s, "${1}'"+Mask+"'")
	s = textAssign.ReplaceAllString(s, "${1}"+Mask)
	s = textFlag.ReplaceAllString(s, "${1}"+Mask)
	if mysqlClient || mysqlInText.MatchString(s) {
		s = textMySQLp.ReplaceAllString(s, "${1}"+Mask)
	}
	return s
}

// isConninfo is a libpq keyword/value string with a password in it
// ("host=db password=…"), as psql and pgbench take it for a database name.
func isConninfo(s string) bool {
	lower := strings.ToLower(s)
	return strings.Contains(lower, "password") && !strings.Contains(s, "://") &&
		conninfoStart.MatchString(lower) && strings.Contains(strings.TrimSpace(s), " ")
}
