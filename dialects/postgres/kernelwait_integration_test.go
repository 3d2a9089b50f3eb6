package postgres

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// kernelWaitDB opens dsn with the kernel wait on, as `run` does when a core
// is spare.
func kernelWaitDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := Dialect{}.Open(context.Background(), dsn, dialects.KernelWait(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return db
}

// The kernel wait is an option of each Open, not the process's: pools
// open at the same time, with it and without, keep their own.
func TestKernelWaitIsAnOptionOfOpen(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	var dbs []*sql.DB
	for _, on := range []bool{true, false, true} {
		db, err := Dialect{}.Open(context.Background(), dsn, dialects.KernelWait(on))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	plain, err := Dialect{}.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	dbs = append(dbs, plain)
	for i, db := range dbs {
		typ := netConnType(t, db)
		if want := i%2 == 0; (typ == "*kernelwait.conn") != want {
			t.Errorf("pool %d (kernel wait %v): the connection under pgx is %s", i, want, typ)
		}
	}
}

// netConnType is the type of the connection under pgx's protocol.
func netConnType(t *testing.T, db *sql.DB) string {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var typ string
	c.Raw(func(dc any) error {
		typ = fmt.Sprintf("%T", dc.(*stdlib.Conn).Conn().PgConn().Conn())
		return nil
	})
	return typ
}

// pgx runs over a kernel-waiting connection: small answers, a large one,
// and a statement cancelled by its context's deadline, which pgx does by
// setting the connection's deadline.
func TestPgxRunsOverTheKernelWait(t *testing.T) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db := kernelWaitDB(t, dsn)
	if typ := netConnType(t, db); typ != "*kernelwait.conn" {
		t.Fatalf("the connection under pgx is %s, not the kernel-waiting one", typ)
	}
	ctx := context.Background()
	for i := range 200 {
		var got int
		if err := db.QueryRowContext(ctx, "SELECT $1::int + 1", i).Scan(&got); err != nil || got != i+1 {
			t.Fatalf("SELECT %d + 1 = %d, %v", i, got, err)
		}
	}
	var n, total int64
	if err := db.QueryRowContext(ctx, "SELECT count(*), sum(length(repeat('x', g % 200))) FROM generate_series(1, 200000) g").Scan(&n, &total); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT g, repeat('x', g % 200) FROM generate_series(1, 200000) g")
	if err != nil {
		t.Fatal(err)
	}
	var seen, length int64
	for rows.Next() {
		var g int64
		var s string
		if err := rows.Scan(&g, &s); err != nil {
			t.Fatal(err)
		}
		seen, length = seen+1, length+int64(len(s))
	}
	if err := rows.Err(); err != nil || seen != n || length != total {
		t.Fatalf("read %d rows of %d bytes, the server counts %d of %d (%v)", seen, length, n, total, err)
	}

	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = db.ExecContext(cctx, "SELECT pg_sleep(30)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a statement past its context's deadline: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the cancelled statement returned after %v", d)
	}
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("after the cancel: %d, %v", one, err)
	}
}

// TLS runs over it too (the server's own certificate; Debian's cluster has
// ssl on).
func TestTLSRunsOverTheKernelWait(t *testing.T) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	plain, err := Dialect{}.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	var ssl string
	err = plain.QueryRow("SHOW ssl").Scan(&ssl)
	plain.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ssl != "on" {
		if testenv.CI() {
			t.Fatal("the test server has ssl off under CI=true: Debian's cluster has it on (scripts/services.sh)")
		}
		t.Skip("the server has ssl off")
	}
	u, err := url.Parse(dsn)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		t.Fatalf("WRITEAMP_TEST_PG_DSN is not a URL: %v", err)
	}
	q := u.Query()
	q.Set("sslmode", "require")
	u.RawQuery = q.Encode()
	db := kernelWaitDB(t, u.String())
	if typ := netConnType(t, db); typ != fmt.Sprintf("%T", &tls.Conn{}) {
		t.Fatalf("sslmode=require: the connection is %s", typ)
	}
	var s string
	if err := db.QueryRow("SELECT repeat('y', 100000)").Scan(&s); err != nil || len(s) != 100000 {
		t.Fatalf("over TLS: %d bytes, %v", len(s), err)
	}
}

// Pipeline sends a list in one batch; a list with a statement bound from an
// earlier one's rows runs one statement at a time in a transaction, which
// an error anywhere rolls back.
func TestPipelineBatchesAndSequences(t *testing.T) {
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db := kernelWaitDB(t, dsn)
	ctx := context.Background()
	schema := fmt.Sprintf("writeamp_pipeline_%d", time.Now().UnixNano())
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema+"; CREATE TABLE "+schema+".t (id int PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tbl := schema + ".t"

	var first int
	res, err := Dialect{}.Pipeline(ctx, conn, []dialects.Stmt{
		{SQL: "INSERT INTO " + tbl + " SELECT g, g FROM generate_series(1, 5) g"},
		{SQL: "SELECT id FROM " + tbl + " ORDER BY id", Query: true, Dest: []any{&first}},
	})
	if err != nil || res[0].RowsAffected != 5 || res[1].RowsReturned != 5 || first != 1 {
		t.Fatalf("batch: %+v, first %d, %v", res, first, err)
	}

	var ids []any
	res, err = Dialect{}.Pipeline(ctx, conn, []dialects.Stmt{
		{SQL: "SELECT id FROM " + tbl + " WHERE id > $1 ORDER BY id", Args: []any{3}, Query: true,
			Each: func(scan func(...any) error) error {
				var id int
				err := scan(&id)
				ids = append(ids, id)
				return err
			}},
		{SQL: "unbound", Late: func() (string, []any, error) {
			return "DELETE FROM " + tbl + " WHERE id = ANY($1)", []any{ids}, nil
		}},
	})
	if err != nil || res[0].RowsReturned != 2 || res[1].RowsAffected != 2 {
		t.Fatalf("sequenced: %+v, %v", res, err)
	}

	count := func() int {
		var n int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+tbl).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	refuse := errors.New("refused")
	_, err = Dialect{}.Pipeline(ctx, conn, []dialects.Stmt{
		{SQL: "DELETE FROM " + tbl + " WHERE id = 1"},
		{SQL: "unbound", Late: func() (string, []any, error) { return "", nil, refuse }},
	})
	if !errors.Is(err, refuse) || count() != 3 {
		t.Errorf("a refused late statement: %v, %d rows left; want the refusal and the delete before it rolled back (3)", err, count())
	}
	_, err = Dialect{}.Pipeline(ctx, conn, []dialects.Stmt{
		{SQL: "DELETE FROM " + tbl + " WHERE id = 1"},
		{SQL: "SELECT 1", Query: true, Late: func() (string, []any, error) { return "SELECT 1", nil, nil },
			Each: func(func(...any) error) error { return refuse }},
	})
	if !errors.Is(err, refuse) || count() != 3 {
		t.Errorf("a row refused by Each: %v, %d rows left; want the refusal and 3", err, count())
	}
}
