package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

func TestRedactHidesPasswords(t *testing.T) {
	d := Dialect{}
	for in, want := range map[string]string{
		"postgres://app:s3cret@db:5432/kc":                 "postgres://app:xxxxx@db:5432/kc",
		"postgres://app@db/kc?password=s3cret&sslmode=off": "postgres://app@db/kc?password=xxxxx",
		"postgres://app@db/kc?sslmode=off&password=s3cret": "postgres://app@db/kc?sslmode=off&password=xxxxx",
		// An escaped quote inside a quoted value, and sslpassword.
		`host=db user=app password='it\'s"q%20x' dbname=kc`:  "host=db user=app password=xxxxx dbname=kc",
		`host=db password=a\ b\'c sslpassword='k' dbname=kc`: "host=db password=xxxxx sslpassword=xxxxx dbname=kc",
		"host=db password='unterminated dbname=kc":           "(a key=value connection string that does not parse; not shown)",
		"host=db user=app password=s3cret dbname=kc":         "host=db user=app password=xxxxx dbname=kc",
		"host=db user=app password='s3 cret' dbname=kc":      "host=db user=app password=xxxxx dbname=kc",
		"postgres://app@db/kc":                               "postgres://app@db/kc",
	} {
		if got := d.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBadDSNSaysWhatIsExpectedWithoutThePassword(t *testing.T) {
	_, err := Config("postgres://app:s3cret@db:notaport/kc")
	if err == nil {
		t.Fatal("expected a parse error")
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "--dsn") {
		t.Errorf("error %q must name --dsn and hide the password", err)
	}
}

func TestClosedPortFailsFastWithoutThePassword(t *testing.T) {
	start := time.Now()
	_, err := Dialect{}.Open(context.Background(), "postgres://app:s3cret@127.0.0.1:1/kc?sslmode=disable")
	if err == nil {
		t.Fatal("connected to a closed port?")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s to fail", time.Since(start))
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("password in error: %v", err)
	}
}

func TestConnectTimeoutIsBounded(t *testing.T) {
	cfg, err := Config("postgres://app@db/kc?connect_timeout=600")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConnectTimeout > ConnectTimeout {
		t.Errorf("connect timeout %s above the bound %s", cfg.ConnectTimeout, ConnectTimeout)
	}
	if cfg.RuntimeParams["application_name"] != "writeamp" {
		t.Error("sessions should be recognisable as writeamp's in pg_stat_activity")
	}
}

func TestSchemesAndKeyValueDSNsSelectPostgres(t *testing.T) {
	for _, dsn := range []string{"postgres://x@y/z", "postgresql://x@y/z", "pg://x@y/z", "host=/tmp dbname=x"} {
		d, err := dialects.ForDSN(dsn)
		if err != nil || d.Name() != Name {
			t.Errorf("ForDSN(%q) = %v, %v", dsn, d, err)
		}
	}
	if _, err := dialects.ForDSN("redis://x"); err == nil || !strings.Contains(err.Error(), "known:") {
		t.Errorf("an unknown scheme must list the known ones: %v", err)
	}
}

func TestVersionPredicates(t *testing.T) {
	cases := []struct {
		v                                 int
		statWAL, newpage, shm, walinspect bool
	}{{130014, false, false, false, false}, {140010, true, false, false, false}, {150020, true, false, true, true}, {160004, true, true, true, true}, {180000, true, true, true, true}}
	for _, c := range cases {
		if supportsStatWAL(c.v) != c.statWAL || supportsNewpage(c.v) != c.newpage || supportsSharedMemStats(c.v) != c.shm || supportsWalinspect(c.v) != c.walinspect {
			t.Errorf("predicates wrong for %d", c.v)
		}
	}
}
