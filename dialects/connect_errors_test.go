package dialects_test

import (
	"context"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	_ "github.com/writeamp/writeamp/dialects/mysql"
	_ "github.com/writeamp/writeamp/dialects/oracle"
	_ "github.com/writeamp/writeamp/dialects/postgres"
	_ "github.com/writeamp/writeamp/dialects/sqlserver"
)

// TestConnectErrorsDoNotDependOnThePassword: writeamp shows the drivers'
// connect errors as they are, because no driver puts the password in them.
// Two passwords of the same shape give the same error.
func TestConnectErrorsDoNotDependOnThePassword(t *testing.T) {
	t.Parallel()
	for _, tmpl := range []string{
		"postgres://app:{}@127.0.0.1:1/kc?sslmode=disable",
		"host=127.0.0.1 port=1 user=app password='{}' dbname=kc sslmode=disable",
		"mysql://app:{}@127.0.0.1:1/kc",
		"app:{}@tcp(127.0.0.1:1)/kc",
		"sqlserver://sa:{}@127.0.0.1:1?database=kc",
		"oracle://system:{}@127.0.0.1:1/FREEPDB1",
	} {
		var errs []string
		for _, pw := range []string{"Secr3tPw", "Wxyz9Qrs"} {
			dsn := strings.ReplaceAll(tmpl, "{}", pw)
			d, err := dialects.ForDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Open(context.Background(), dsn)
			if err == nil {
				t.Fatalf("%s: connected to port 1?", d.Name())
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("%s: the error shows the password: %v", d.Name(), err)
			}
			errs = append(errs, err.Error())
		}
		if errs[0] != errs[1] {
			t.Errorf("the connect error depends on the password:\n%s\n%s", errs[0], errs[1])
		}
	}
}
