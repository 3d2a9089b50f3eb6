package dialects_test

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	_ "github.com/writeamp/writeamp/dialects/postgres" // its Redact reads libpq conninfo
)

const secret = "Hunter2Sec"

func TestRedactArgvMasksEveryForm(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{
		{"env", "PGPASSWORD=" + secret, "psql", "-f", "w.sql"},
		{"env", "MYSQL_PWD=" + secret, "mysql", "-h", "db"},
		{"env", "DATABASE_URL=postgres://app:" + secret + "@db/x", "./run-tests"},
		{"env", "AWS_SECRET_ACCESS_KEY=" + secret, "API_TOKEN=" + secret, "make"},
		{"mysql", "-uroot", "-p" + secret, "app"},
		{"/usr/bin/mariadb-dump", "-p" + secret},
		{"env", "X=1", "mysqladmin", "-p" + secret, "status"},
		{"psql", "--password=" + secret},
		{"tool", "--db-password", secret, "--x"},
		{"sqlcmd", "-S", "db", "-U", "sa", "-P", secret},
		{"pgbench", "postgres://app:" + secret + "@db:5432/x"},
		{"pgbench", "host=db password=" + secret + " dbname=x"},
		{"psql", "host=db password='" + secret + " with space' dbname=x"},
		{"sh", "-c", "PGPASSWORD=" + secret + " psql -h db -f w.sql"},
		{"sh", "-c", "PGPASSWORD='" + secret + "' psql postgres://u:" + secret + "@h/x"},
		{"bash", "-lc", "mysql -uroot -p" + secret + " app < x.sql"},
		{"sh", "-c", "tool --password " + secret + " && other"},
		{"psql", "-c", "ALTER ROLE app PASSWORD '" + secret + "'"},
		{"mysql", "-e", "CREATE USER u IDENTIFIED BY '" + secret + "'"},
		{"go-ycsb", "run", "postgresql", "-p", "pg.password=" + secret},
	} {
		got := strings.Join(dialects.RedactArgv(argv), " ")
		if strings.Contains(got, secret) || strings.Contains(got, "Hunter2") {
			t.Errorf("%q shown as %q", argv, got)
		}
		if !strings.Contains(got, dialects.Mask) && !strings.Contains(got, "not shown") {
			t.Errorf("%q: nothing masked in %q", argv, got)
		}
	}
}

// What is not a secret stays as written: the report must still say which
// command ran.
func TestRedactArgvKeepsTheRest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"psql -X -v ON_ERROR_STOP=1 -f work.sql postgres://app@db:5432/x", ""},
		{"pgbench -n -c 2 -p 5432 -T 10 bench", ""},
		{"mysql -h db -P 3306 -uroot app", ""},
		{"sh -c psql -c 'update t set v = v + 1'", ""},
		{"env PGHOST=db PGPORT=5433 psql", ""},
		{"psql --password -f w.sql", ""},
	} {
		argv := strings.Fields(c.in)
		if c.in == "sh -c psql -c 'update t set v = v + 1'" {
			argv = []string{"sh", "-c", "psql -c 'update t set v = v + 1'"}
		}
		got := strings.Join(dialects.RedactArgv(argv), " ")
		want := strings.Join(argv, " ")
		if got != want {
			t.Errorf("%q became %q", want, got)
		}
	}
}
