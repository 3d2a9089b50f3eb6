package refreshtoken_test

import (
	"context"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// The 26.8 index definitions as the servers store them after the workload's
// DDL ran (jpa-changelog-26.8.0.xml, PR #51858): read back from the catalog,
// not from the SQL text, so a dialect that silently ignored a clause fails.

type index struct {
	keys, include, predicate string
}

// prepared creates a variant's tables, returns the catalog's reading of its
// indexes, and drops them again.
func prepared(t *testing.T, target dialects.Target, variant string, p refreshtoken.Params, read func(schema string) map[string]index) map[string]index {
	t.Helper()
	w := refreshtoken.New(p)
	ctx := context.Background()
	if err := w.Prepare(ctx, target, variant); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Cleanup(ctx, target); err != nil {
			t.Error(err)
		}
	}()
	return read(w.Schema())
}

func check(t *testing.T, what string, got map[string]index, want map[string]index) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		switch {
		case w == (index{}) && ok:
			t.Errorf("%s: %s exists, want it dropped", what, name)
		case w != (index{}) && g != w:
			t.Errorf("%s: %s is %+v, want %+v", what, name, g, w)
		}
	}
}

func TestIndexDefinitionsOnPostgres(t *testing.T) {
	t.Parallel()
	pgt := pgTarget(t)
	read := func(schema string) map[string]index {
		rows, err := pgt.DB.Query(`SELECT c.relname, ix.indnkeyatts,
			  array_to_string(array(SELECT a.attname FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
			    JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum ORDER BY k.ord), ','),
			  coalesce(pg_get_expr(ix.indpred, ix.indrelid), '')
			FROM pg_index ix JOIN pg_class c ON c.oid = ix.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1`, schema)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]index{}
		for rows.Next() {
			var name, cols, pred string
			var nkey int
			if err := rows.Scan(&name, &nkey, &cols, &pred); err != nil {
				t.Fatal(err)
			}
			c := strings.Split(cols, ",")
			out[name] = index{keys: strings.Join(c[:nkey], ","), include: strings.Join(c[nkey:], ","), predicate: pred}
		}
		return out
	}
	p := refreshtoken.DefaultParams()
	check(t, "26.7", prepared(t, pgt, "baseline", p, read), map[string]index{
		"idx_user_session_expiration_last_refresh":    {keys: "realm_id,offline_flag,remember_me,last_session_refresh,user_session_id,user_id"},
		"idx_user_session_expiration_created":         {keys: "realm_id,offline_flag,remember_me,created_on,user_session_id,user_id"},
		"idx_offline_uss_by_broker_session_id":        {keys: "broker_session_id,realm_id"},
		"idx_offline_css_by_user_session_and_offline": {keys: "offline_flag,user_session_id"},
	})
	check(t, "26.8", prepared(t, pgt, "coarse", p, read), map[string]index{
		"idx_user_session_expiration_last_refresh":    {keys: "realm_id,offline_flag,remember_me,session_bucket,last_session_refresh_coarse", include: "user_session_id,user_id"},
		"idx_user_session_expiration_created":         {keys: "realm_id,offline_flag,remember_me,session_bucket,created_on", include: "user_session_id,user_id"},
		"idx_offline_uss_by_broker_session_id":        {keys: "broker_session_id,realm_id", predicate: "(broker_session_id IS NOT NULL)"},
		"idx_offline_css_by_user_session_and_offline": {},
	})
	p.BucketPosition, p.CSSUserSessionIndex = "leading", "keep"
	check(t, "26.8, --bucket-position leading --css-user-session-index keep", prepared(t, pgt, "coarse", p, read), map[string]index{
		"idx_user_session_expiration_last_refresh":    {keys: "session_bucket,realm_id,offline_flag,remember_me,last_session_refresh_coarse", include: "user_session_id,user_id"},
		"idx_offline_css_by_user_session_and_offline": {keys: "offline_flag,user_session_id"},
	})
}

func TestIndexDefinitionsOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	myt := dialects.Target{DB: db, Dialect: mysql.Dialect{}, Server: s}
	read := func(schema string) map[string]index {
		rows, err := db.Query(`SELECT INDEX_NAME, GROUP_CONCAT(CASE WHEN SUB_PART IS NULL THEN COLUMN_NAME ELSE CONCAT(COLUMN_NAME, '(', SUB_PART, ')') END ORDER BY SEQ_IN_INDEX)
			FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? GROUP BY TABLE_NAME, INDEX_NAME`, schema)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]index{}
		for rows.Next() {
			var name, cols string
			if err := rows.Scan(&name, &cols); err != nil {
				t.Fatal(err)
			}
			out[strings.ToLower(name)] = index{keys: strings.ToLower(cols)}
		}
		var typ string
		if err := db.QueryRow(`SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'offline_user_session' AND COLUMN_NAME = 'broker_session_id'`, schema).Scan(&typ); err != nil {
			t.Fatal(err)
		}
		out["broker_session_id column"] = index{keys: typ}
		return out
	}
	p := refreshtoken.DefaultParams()
	check(t, "26.7", prepared(t, myt, "baseline", p, read), map[string]index{
		"idx_user_session_expiration_last_refresh": {keys: "realm_id,offline_flag,remember_me,last_session_refresh,user_session_id,user_id"},
		"idx_offline_uss_by_broker_session_id":     {keys: "broker_session_id(255),realm_id"},
		"broker_session_id column":                 {keys: "text"},
	})
	// No INCLUDE on MySQL/MariaDB: the ids stay trailing key columns, and the
	// broker index is not filtered.
	check(t, "26.8", prepared(t, myt, "coarse", p, read), map[string]index{
		"idx_user_session_expiration_last_refresh":    {keys: "realm_id,offline_flag,remember_me,session_bucket,last_session_refresh_coarse,user_session_id,user_id"},
		"idx_user_session_expiration_created":         {keys: "realm_id,offline_flag,remember_me,session_bucket,created_on,user_session_id,user_id"},
		"idx_offline_uss_by_broker_session_id":        {keys: "broker_session_id(255),realm_id"},
		"broker_session_id column":                    {keys: "text"},
		"idx_offline_css_by_user_session_and_offline": {},
	})
}

// pgTarget connects to the test PostgreSQL (closed when the test ends) and
// probes it.
func pgTarget(t *testing.T) dialects.Target {
	t.Helper()
	ctx := context.Background()
	db, err := pg.Dialect{}.Open(ctx, testenv.DSN(t, "WRITEAMP_TEST_PG_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	testenv.Reachable(t, db, "PostgreSQL")
	target, err := dialects.NewTarget(ctx, pg.Dialect{}, db)
	if err != nil {
		t.Fatal(err)
	}
	return target
}
