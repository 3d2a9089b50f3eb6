package main

import (
	"database/sql"
	"testing"

	pgd "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// While a window is open on the postgres database, writeamp's wait sampler
// used to sit in template1, and every CREATE DATABASE on the server (from
// template1, the default) failed meanwhile: here the measured command
// itself creates one. No session of writeamp's may be in template1.
func TestMeasureLeavesTemplate1Free(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	srv := pgmatrix.Start(t, 15)
	dsn := pgd.WithDatabase(srv.DSN, "postgres")
	out, stderr, err := run(t, "measure", "--dsn", dsn, "-q", "--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1",
		"-c", "select pg_sleep(0.5)", "-c", "create database wa_made_meanwhile", "-c", "select pg_sleep(0.5)")
	if err != nil {
		t.Fatalf("measure: %v\n%s\n%s", err, stderr, out)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("select count(*) from pg_database where datname = 'wa_made_meanwhile'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the database made during the window: %d (%v)", n, err)
	}
}
