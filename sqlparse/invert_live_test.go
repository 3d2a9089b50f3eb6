package sqlparse_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	pgd "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/sqlparse"
)

// catalogQueries list what a migration can change, one row per fact, so two
// snapshots compare as text.
var catalogQueries = map[string]string{
	sqlparse.Postgres: `
select 'schema ' || nspname from pg_namespace where nspname not like 'pg\_%' and nspname <> 'information_schema'
union all
select 'relation ' || n.nspname || '.' || c.relname || ' kind ' || c.relkind::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where n.nspname not like 'pg\_%' and n.nspname <> 'information_schema'
union all
select 'column ' || table_schema || '.' || table_name || '.' || column_name || ' #' || ordinal_position || ' ' || data_type || ' null ' || is_nullable || ' default ' || coalesce(column_default, '-')
  from information_schema.columns where table_schema not like 'pg\_%' and table_schema <> 'information_schema'
union all
select 'index ' || schemaname || '.' || indexname || ': ' || indexdef from pg_indexes where schemaname not like 'pg\_%'
union all
select 'constraint ' || conrelid::regclass::text || '.' || conname || ': ' || pg_get_constraintdef(oid) from pg_constraint
 where connamespace::regnamespace::text not like 'pg\_%' and connamespace::regnamespace::text <> 'information_schema'
union all
select 'type ' || typnamespace::regnamespace::text || '.' || typname from pg_type
 where typnamespace::regnamespace::text not like 'pg\_%' and typnamespace::regnamespace::text <> 'information_schema'
union all
select 'extension ' || extname from pg_extension
order by 1`,
	sqlparse.MySQL: `
select concat('table ', table_name, ' ', table_type) from information_schema.tables where table_schema = database()
union all
select concat('column ', table_name, '.', column_name, ' #', ordinal_position, ' ', column_type, ' null ', is_nullable, ' default ', coalesce(column_default, '-'))
  from information_schema.columns where table_schema = database()
union all
select concat('index ', table_name, '.', index_name, ' ', seq_in_index, ' ', column_name, ' unique ', 1 - non_unique)
  from information_schema.statistics where table_schema = database()
union all
select concat('constraint ', table_name, '.', constraint_name, ' ', constraint_type) from information_schema.table_constraints where constraint_schema = database()
union all
select concat('check ', constraint_name, ' ', check_clause) from information_schema.check_constraints where constraint_schema = database()
union all
select concat('routine ', routine_name) from information_schema.routines where routine_schema = database()
order by 1`,
}

func catalog(t *testing.T, db *sql.DB, dialect string) string {
	t.Helper()
	rows, err := db.Query(catalogQueries[dialect])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		b.WriteString(s + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// scratch creates a database of its own on the server of dsn and returns a
// connection to it; it is dropped when the test ends.
func scratch(t *testing.T, dialect, dsn string) *sql.DB {
	t.Helper()
	name := map[string]string{sqlparse.Postgres: pgd.Name, sqlparse.MySQL: my.Name}[dialect]
	d, _ := dialects.Get(name)
	ctx := context.Background()
	admin, err := d.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Reachable(t, admin, dialect)
	t.Cleanup(func() { admin.Close() })
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("this test needs a URL DSN, not %q", d.Redact(dsn))
	}
	db := fmt.Sprintf("wa_sqlparse_inverse_%d", os.Getpid())
	if _, err := admin.Exec("DROP DATABASE IF EXISTS " + db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	conn, err := d.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	t.Cleanup(func() {
		conn.Close()
		if _, err := admin.Exec("DROP DATABASE " + db); err != nil {
			t.Errorf("drop %s: %v", db, err)
		}
	})
	return conn
}

func apply(t *testing.T, db *sql.DB, what string, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %s: %v", what, s, err)
		}
	}
}

func load(t *testing.T, dialect, path string) []sqlparse.Statement {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlparse.Split(dialect, string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return st
}

func texts(st []sqlparse.Statement) []string {
	var out []string
	for _, s := range st {
		out = append(out, s.Text)
	}
	return out
}

// TestInverseRestoresCatalog applies a real migration, then the inverse
// Invert computed for it, and holds the catalog to what it was before.
func TestInverseRestoresCatalog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dialect, env, base, migration string
	}{
		{sqlparse.Postgres, "WRITEAMP_TEST_PG_DSN", "postgres/00001_base.sql", "postgres/20240611093000_billing.sql"},
		{sqlparse.MySQL, "WRITEAMP_TEST_MYSQL_DSN", "mariadb/000001_base.up.sql", "mariadb/000002_customers.up.sql"},
	} {
		t.Run(c.dialect, func(t *testing.T) {
			db := scratch(t, c.dialect, testenv.DSN(t, c.env))
			apply(t, db, c.base, texts(load(t, c.dialect, c.base)))
			before := catalog(t, db, c.dialect)
			up := load(t, c.dialect, c.migration)
			inv, err := sqlparse.Invert(c.dialect, up)
			if err != nil {
				t.Fatal(err)
			}
			if len(inv.Refused) > 0 {
				t.Fatalf("refused: %v", inv.Refused)
			}
			apply(t, db, c.migration, texts(up))
			migrated := catalog(t, db, c.dialect)
			if migrated == before {
				t.Fatal("the migration changed nothing in the catalog: the comparison would prove nothing")
			}
			apply(t, db, "inverse", inv.Statements)
			if after := catalog(t, db, c.dialect); after != before {
				t.Fatalf("catalog after the inverse differs:\n--- before\n%s--- after\n%s", before, after)
			}
		})
	}
}
