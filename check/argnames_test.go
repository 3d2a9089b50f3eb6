package check

import (
	"errors"
	"strings"
	"testing"
)

// A command that names the database other than through the --dsn text
// would write the database itself while its copies are measured: found
// in the arguments and inside a shell command line, not in a user's name
// or in the DSN text check rewrites.
func TestCommandThatNamesTheDatabaseItself(t *testing.T) {
	const dsn = "postgres://postgres@127.0.0.1:5432/shop?sslmode=disable"
	for _, c := range []struct {
		argv  []string
		names bool
	}{
		{[]string{"psql", dsn, "-c", "update t set v = 1"}, false},
		{[]string{"pgbench", "-n", "-t", "100", dsn}, false},
		{[]string{"psql", "-h", "127.0.0.1", "-d", "shop", "-c", "update t set v = 1"}, true},
		{[]string{"psql", "-h", "127.0.0.1", "--dbname=shop"}, true},
		{[]string{"pgbench", "-n", "-h", "127.0.0.1", "shop"}, true},
		{[]string{"psql", "host=127.0.0.1 dbname=shop"}, true},
		{[]string{"psql", "postgres://u@otherhost/shop"}, true},
		{[]string{"sh", "-c", "psql -X -d shop -f work.sql"}, true},
		{[]string{"mysql", "-h", "127.0.0.1", "-Dshop"}, true},
		{[]string{"mysql", "-h", "127.0.0.1", "--database=shop"}, true},
		{[]string{"psql", "-U", "shop", dsn}, false},
		{[]string{"sh", "-c", "psql \"$WRITEAMP_CHECK_DSN\" -c 'update shopping set v = 1'"}, false},
		{[]string{"shop"}, false}, // the program, not an argument
	} {
		_, got := namesOriginal(c.argv, dsn, "shop")
		if got != c.names {
			t.Errorf("%q: names the database itself %v, want %v", c.argv, got, c.names)
		}
	}
	err := refuseNamedOriginal([]string{"psql", "-d", "shop"}, dsn, "shop", "postgres")
	if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "--in-place") || !strings.Contains(err.Error(), "WRITEAMP_CHECK_DSN") {
		t.Errorf("the refusal must be a refusal naming the ways out: %v", err)
	}
}

// On MariaDB/MySQL the copies keep the database's name on a scratch
// server: naming the database is fine, naming the server's port or a
// socket leads back to the original.
func TestMySQLCommandThatNamesTheServer(t *testing.T) {
	const dsn = "mysql://root@127.0.0.1:3307/shop"
	for _, c := range []struct {
		argv    []string
		refused bool
	}{
		{[]string{"mysql", "-h", "127.0.0.1", "shop", "-e", "update t set v = 1"}, false},
		{[]string{"mysql", "-h", "127.0.0.1", "-P", "3307", "shop"}, true},
		{[]string{"mysql", "-P3307", "shop"}, true},
		{[]string{"mysql", "--port=3307", "shop"}, true},
		{[]string{"mysql", "-S", "/run/mysqld/mysqld.sock", "shop"}, true},
		{[]string{"sh", "-c", "mysql -h 127.0.0.1 -P 3307 shop < work.sql"}, true},
		{[]string{"sysbench", "--mysql-host=127.0.0.1:3307"}, true},
		{[]string{"sh", "-c", `mysql -P"$1" shop`, "sh", "3307"}, true},
		{[]string{"mysql", "-P", "3306", "shop"}, false}, // another port: not this server
		{[]string{"my-bench", dsn}, false},
	} {
		err := refuseNamedOriginal(c.argv, dsn, "shop", "mysql")
		if (err != nil) != c.refused {
			t.Errorf("%q: refused %v, want %v (%v)", c.argv, err != nil, c.refused, err)
		}
	}
}
