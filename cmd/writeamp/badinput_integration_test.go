package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A server that accepts the connection and then says nothing must not hold
// a command longer than the connect bound.
func TestSilentServerFailsWithinTheConnectBound(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, answer nothing
		}
	}()
	old := postgres.ConnectTimeout
	postgres.ConnectTimeout = time.Second
	defer func() { postgres.ConnectTimeout = old }()
	start := time.Now()
	_, _, err = run(t, "run", "-q", "--dsn", fmt.Sprintf("postgres://app:Xq7Secr3tPw@%s/kc?sslmode=disable", l.Addr()))
	if err == nil {
		t.Fatal("a silent server cannot be measured")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s against a silent server with a 1 s connect bound", d)
	}
	if strings.Contains(err.Error(), "Xq7Secr3tPw") {
		t.Errorf("password echoed: %v", err)
	}
}

// A wrong password gets one clear line, without the password, and is not
// a usage error (the DSN is well formed).
func TestWrongPasswordIsClearAndNotEchoed(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	admin, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/", u.User.Username(), pw, u.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	testenv.Reachable(t, admin, "MariaDB")
	user := fmt.Sprintf("wa_pw_%d", os.Getpid())
	if _, err := admin.Exec(fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'RightPassw0rd'", user)); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(fmt.Sprintf("DROP USER '%s'@'%%'", user))
	bad := fmt.Sprintf("mysql://%s:Wr0ngSecretPw@%s/test", user, u.Host)
	_, _, err = run(t, "run", "-q", "--dsn", bad)
	if err == nil {
		t.Fatal("connected with a wrong password?")
	}
	var ue usageError
	if errors.As(err, &ue) {
		t.Errorf("a refused login is not a usage error: %v", err)
	}
	if strings.Contains(err.Error(), "Wr0ngSecretPw") || strings.Contains(err.Error(), "RightPassw0rd") {
		t.Errorf("password in the error: %v", err)
	}
	if !strings.Contains(err.Error(), "Access denied") || strings.Count(strings.TrimSpace(err.Error()), "\n") > 0 {
		t.Errorf("want one line saying access was denied: %q", err)
	}
}
