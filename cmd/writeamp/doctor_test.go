package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testenv"
)

// A plain login role: pg_walinspect is missing with the GRANT that fixes it,
// and the schema the workload needs cannot be created (exit 1).
func TestDoctorAsANonSuperuser(t *testing.T) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testenv.Reachable(t, db, "PostgreSQL")
	role := fmt.Sprintf("wa_test_doctor_%d", os.Getpid())
	if _, err := db.Exec("DROP ROLE IF EXISTS " + role); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE ROLE " + role + " LOGIN PASSWORD 'doctor-pw'"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP ROLE IF EXISTS " + role)
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(role, "doctor-pw")
	out, _, err := run(t, "doctor", "--dsn", u.String())
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1 (no CREATE on the database)\n%s", exitCode(err), err, out)
	}
	walLine := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "pg_walinspect") && strings.Contains(l, "MISSING") {
			walLine = l
		}
	}
	if walLine == "" || !strings.Contains(out, "GRANT pg_read_server_files TO "+role) && !strings.Contains(out, `GRANT pg_read_server_files TO "`+role+`"`) {
		t.Errorf("pg_walinspect not listed as missing with its GRANT:\n%s", out)
	}
	for _, want := range []string{"available  wal_lsn", "available  pg_stat_user_tables", "MISSING    create schema",
		"GRANT CREATE ON DATABASE", "GRANT pg_checkpoint TO", "cannot run here"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "doctor-pw") {
		t.Error("password echoed")
	}

	// The superuser: everything needed is there.
	out, _, err = run(t, "doctor", "--dsn", dsn, "--format", "json")
	if err != nil || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("superuser: %v\n%s", err, out)
	}
}
