package check

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// notTheDatabase are the client options whose value is a user, host, port
// or password, never a database: `psql -U postgres` on a database also
// named postgres does not name the database.
var notTheDatabase = map[string]bool{
	"-U": true, "--username": true, "-u": true, "--user": true, "-h": true, "--host": true,
	"-p": true, "--port": true, "-P": true, "-W": true, "--password": true, "-S": true, "--socket": true,
	"-f": true, "--file": true, "-c": true, "--command": true, "-e": true, "--execute": true,
}

// findWord calls match with every word of argv's arguments (a shell
// command line inside one split into its words), and the word or
// argument before it, and returns the argument holding the first that
// matches. The program's name is skipped unless it is a shell; the --dsn
// text is left out (check rewrites it to the copy's).
func findWord(argv []string, dsnText string, match func(prev, w string) bool) (string, bool) {
	for i, arg := range argv {
		if i == 0 && filepath.Base(arg) != "sh" && filepath.Base(arg) != "bash" {
			continue
		}
		a := arg
		if dsnText != "" {
			a = strings.ReplaceAll(a, dsnText, " ")
		}
		words := strings.FieldsFunc(a, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '"' || r == '\'' || r == '&' || r == '|'
		})
		prev := ""
		if i > 0 {
			prev = argv[i-1]
		}
		for j, w := range words {
			if j > 0 {
				prev = words[j-1]
			}
			if match(prev, w) {
				return arg, true
			}
		}
	}
	return "", false
}

// namesOriginal finds an argument of a wrapped command that names the
// database db directly (`-d db`, `--dbname=db`, `dbname=db`, `-Ddb`, or db
// as a word on its own, in the argument or in a shell command line inside
// it) rather than through the --dsn text. Such a command would write the
// database itself while check measures copies of it. The values of
// options that take a user, host, port, password, file or command are
// not the database.
func namesOriginal(argv []string, dsnText, db string) (string, bool) {
	if db == "" {
		return "", false
	}
	return findWord(argv, dsnText, func(prev, w string) bool {
		if notTheDatabase[prev] && w == db {
			return false
		}
		return w == db ||
			strings.HasSuffix(w, "="+db) && !strings.Contains(strings.TrimSuffix(w, "="+db), "=") ||
			strings.HasSuffix(w, "/"+db) ||
			w == "-d"+db || w == "-D"+db
	})
}

// namesServerPort finds an argument that names the server's port (`-P
// 3306`, `-P3306`, `--port=3306`, `host:3306`, or the port alone, handed
// to a script) or a socket (`-S`, `--socket`): MariaDB/MySQL copies live
// on a scratch server of their own under the database's own name, reached
// through MYSQL_HOST and MYSQL_TCP_PORT, which a port or socket named on
// the command line overrides, leading the command back to the original
// server.
func namesServerPort(argv []string, dsnText, port string) (string, bool) {
	for _, arg := range argv[min(1, len(argv)):] {
		if arg == port {
			// the port handed to a script as an argument of its own
			return arg, true
		}
	}
	return findWord(argv, dsnText, func(prev, w string) bool {
		return (prev == "-P" || prev == "--port") && w == port ||
			w == "-P"+port || w == "--port="+port || strings.HasSuffix(w, ":"+port) ||
			w == "-S" || w == "--socket" || strings.HasPrefix(w, "--socket=")
	})
}

var dsnPort = regexp.MustCompile(`:(\d+)(?:[/)?]|$)`)

// refuseNamedOriginal refuses a wrapped command that would reach the
// database itself instead of check's copies of it. Where a schema is a
// database (MariaDB/MySQL) a copy is loaded under the database's own name
// on a scratch server, so what leads back is the server's port or a
// socket; elsewhere the copies have names of their own, so what leads
// back is the database's name.
func refuseNamedOriginal(argv []string, dsnText, db, dialect string) error {
	if dialects.SchemasAreDatabases(dialect) {
		port := "3306" // the MySQL protocol's default
		if m := dsnPort.FindStringSubmatch(dsnText); m != nil {
			port = m[1]
		}
		if arg, ok := namesServerPort(argv, dsnText, port); ok {
			return fmt.Errorf("%w: the command names the server's port or socket (in %q): check runs it on copies of %s on a scratch server of its own, reached through MYSQL_HOST and MYSQL_TCP_PORT, which a port or socket on the command line overrides, so this command would write %s itself. Leave the port and socket out (e.g. -- mysql -h 127.0.0.1 %s -e '…'), or pass the --dsn text as one argument; or give --in-place to measure on %s itself and undo the migration there",
				errRefused, arg, db, db, db, db)
		}
		return nil
	}
	arg, ok := namesOriginal(argv, dsnText, db)
	if !ok {
		return nil
	}
	return fmt.Errorf("%w: the command names the database %s itself (in %q), not through the --dsn text: check runs it on copies of %s and rewrites only that text (and PG*/MYSQL_* variables) to point at them, so this command would write %s itself. Pass the connection as the --dsn text in one argument (e.g. -- psql \"$DSN\" -f work.sql), or read it from $WRITEAMP_CHECK_DSN or $PGDATABASE in a script; or give --in-place to measure on %s itself and undo the migration there",
		errRefused, db, arg, db, db, db)
}
