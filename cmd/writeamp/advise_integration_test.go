package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

type adviceDoc struct {
	Recommendations []struct {
		Object    string `json:"object"`
		Kind      string `json:"kind"`
		Migration struct{ Up, Down string }
		Measured  map[string]struct {
			Before, After *float64
			Exactness     string
		} `json:"measured"`
		Saving *float64 `json:"log_bytes_saving"`
		Risks  []string `json:"risks"`
	} `json:"recommendations"`
	Skipped []struct{ Object, Error string } `json:"skipped"`
}

func readAdvice(t *testing.T, path string) adviceDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d adviceDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return d
}

// pgbench with an index on the column its UPDATE sets and one duplicating
// the primary key: both are recommended, measured on copies, and the
// database keeps both (and its rows).
func TestAdviseDropsTheUpdatedAndTheDuplicateIndexOnPgbench(t *testing.T) {
	pgbench := testenv.Tool(t, "pgbench")
	dsn := scratchDB(t, "wa_test_advise_pgbench")
	if out, err := exec.Command(pgbench, "-i", "-s", "1", "-q", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create index acc_abalance on pgbench_accounts (abalance);
create index acc_aid_dup on pgbench_accounts (aid);
alter table pgbench_accounts set (fillfactor = 80)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("vacuum full pgbench_accounts"); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		var s string
		if err := db.QueryRow(`select string_agg(indexname, ',' order by indexname) || '/' || (select count(*) from pgbench_history) || '/' || (select sum(abalance) from pgbench_accounts)
from pg_indexes where schemaname = 'public'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	db.Close() // nobody connected: the copies are TEMPLATE copies
	dir := t.TempDir()
	js := filepath.Join(dir, "a.json")
	out, stderr, err := run(t, "advise", "--dsn", dsn, "--format", "json", "-o", js, "-q", "--out-dir", filepath.Join(dir, "m"), "--", pgbench, "-n", "-c", "1", "-t", "1000", dsn)
	if err != nil {
		t.Fatalf("advise: %v\n%s\n%s", err, out, stderr)
	}
	db, _ = sql.Open("pgx", dsn)
	if got := state(); got != before {
		t.Errorf("the database changed: %s, was %s", got, before)
	}
	d := readAdvice(t, js)
	found := map[string]int{}
	for i, r := range d.Recommendations {
		found[r.Object] = i
		if r.Migration.Up == "" || r.Migration.Down == "" {
			t.Errorf("%s: no migration", r.Object)
		}
	}
	ab, ok1 := found["acc_abalance"]
	dup, ok2 := found["acc_aid_dup"]
	if !ok1 || !ok2 {
		t.Fatalf("recommendations %+v (skipped %+v): want acc_abalance and acc_aid_dup", d.Recommendations, d.Skipped)
	}
	r := d.Recommendations[ab]
	hot, lb := r.Measured["hot_ratio"], r.Measured["log_bytes/op"]
	if hot.Before == nil || hot.After == nil || *hot.After < 0.9 || *hot.Before > 0.1 {
		t.Errorf("acc_abalance: HOT %+v, want 0 → 1 (abalance is what every update sets)", hot)
	}
	if lb.Before == nil || lb.After == nil || *lb.After >= *lb.Before || lb.Exactness == "" {
		t.Errorf("acc_abalance: log bytes/op %+v, want lower after", lb)
	}
	if e := r.Measured["index_entries/op"]; e.After == nil || *e.After != 0 {
		t.Errorf("acc_abalance: index entries after %+v, want 0 (every update HOT)", e)
	}
	if k := d.Recommendations[dup].Kind; k != "duplicate" {
		t.Errorf("acc_aid_dup: kind %s", k)
	}
	if !strings.Contains(d.Recommendations[dup].Migration.Down, "CREATE INDEX acc_aid_dup ON public.pgbench_accounts USING btree (aid)") {
		t.Errorf("acc_aid_dup down %q", d.Recommendations[dup].Migration.Down)
	}
	for _, o := range []string{"pgbench_accounts_pkey", "pgbench_branches_pkey"} {
		if _, ok := found[o]; ok {
			t.Errorf("%s backs the primary key and was recommended", o)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "m", "*.sql"))
	if len(files) != 2*len(d.Recommendations) {
		t.Errorf("--out-dir wrote %q", files)
	}
}

// The built-in workload's baseline: the expiration index on the refresh
// column comes first, measured.
func TestAdviseBuiltinRanksTheExpirationIndexFirst(t *testing.T) {
	dsn := scratchDB(t, "wa_test_advise_builtin")
	dir := t.TempDir()
	js := filepath.Join(dir, "b.json")
	out, stderr, err := run(t, "advise", "--dsn", dsn, "--variant", "baseline", "--logins", "100", "--max-candidates", "2", "--format", "json", "-o", js, "-q")
	if err != nil {
		t.Fatalf("advise: %v\n%s\n%s", err, out, stderr)
	}
	d := readAdvice(t, js)
	if len(d.Recommendations) == 0 {
		t.Fatalf("no recommendation (skipped %+v)", d.Skipped)
	}
	top := d.Recommendations[0]
	if top.Object != "idx_user_session_expiration_last_refresh" || top.Kind != "updated_key" || top.Saving == nil || *top.Saving <= 0 {
		t.Fatalf("top %+v", top)
	}
	if h := top.Measured["hot_ratio"]; h.After == nil || *h.After < 0.9 {
		t.Errorf("HOT after dropping it %+v, want ≥ 0.9", h)
	}
	if !strings.HasPrefix(top.Migration.Down, "CREATE INDEX idx_user_session_expiration_last_refresh ON offline_user_session ") {
		t.Errorf("down %q: unqualified, for the workload's own schema", top.Migration.Down)
	}
	var tbl string
	tbl, stderr, err = run(t, "advise", "--dsn", dsn, "--logins", "50", "--max-candidates", "1", "-q")
	if err != nil || !strings.Contains(tbl, "1. drop index idx_user_session_expiration_last_refresh saves ") {
		t.Errorf("table: %v\n%s\n%s", err, tbl, stderr)
	}
}

// MariaDB: the index on the column the workload updates is dropped first
// (its saving of redo measured on a scratch copy), the duplicate is
// proposed, and the database keeps its indexes.
func TestAdviseOnMariaDB(t *testing.T) {
	client := testenv.Tool(t, "mariadb", "mysql")
	base := mysqltest.DSN(t)
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, state varchar(20), touched int NOT NULL DEFAULT 0, KEY jobs_touched (touched), KEY jobs_state (state), KEY jobs_state_dup (state)) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 'new', 0 FROM seq_1_to_2000", "ANALYZE TABLE "+name+".jobs")
	dsn := mariaDSNOf(t, base, name)
	dir := t.TempDir()
	var work strings.Builder
	for i := 1; i <= 2000; i++ {
		work.WriteString("update jobs set touched = touched + 1 where id = " + strconv.Itoa(i) + ";\n")
	}
	workSQL := write(t, dir, "work.sql", work.String())
	indexes := func() string {
		var s string
		if err := db.QueryRow("SELECT GROUP_CONCAT(DISTINCT INDEX_NAME ORDER BY INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?", name).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := indexes()
	js := filepath.Join(dir, "m.json")
	out, stderr, err := run(t, "advise", "--dsn", dsn, "--format", "json", "-o", js, "-q", "--",
		// The DSN is one argument: advise points it at each copy.
		"sh", "-c", `u=${1#mysql://}; db=${u#*/}; db=${db%%\?*}; hp=${u%%/*}; user=${hp%%@*}; hp=${hp#*@}
exec `+client+` -u"${user%%:*}" -h"${hp%:*}" -P"${hp##*:}" "$db" < "$2"`, "sh", dsn, workSQL)
	if err != nil {
		t.Fatalf("advise: %v\n%s\n%s", err, out, stderr)
	}
	if got := indexes(); got != before {
		t.Errorf("indexes %s, were %s", got, before)
	}
	var touched int
	if err := db.QueryRow("SELECT SUM(touched) FROM " + name + ".jobs").Scan(&touched); err != nil || touched != 0 {
		t.Errorf("the workload wrote to the database itself (sum(touched) %d, %v): it must run on copies", touched, err)
	}
	d := readAdvice(t, js)
	kinds := map[string]string{}
	for _, r := range d.Recommendations {
		kinds[r.Object] = r.Kind
	}
	if len(d.Recommendations) == 0 || d.Recommendations[0].Object != "jobs_touched" || kinds["jobs_touched"] != "updated_key" {
		t.Fatalf("recommendations %+v (skipped %+v): want jobs_touched first", d.Recommendations, d.Skipped)
	}
	top := d.Recommendations[0]
	if lb := top.Measured["log_bytes/op"]; lb.Before == nil || lb.After == nil || *lb.After >= *lb.Before || top.Migration.Up != "ALTER TABLE `jobs` DROP INDEX `jobs_touched`;\n" && !strings.Contains(top.Migration.Up, "DROP INDEX `jobs_touched`") {
		t.Errorf("jobs_touched: %+v", top)
	}
	if !strings.Contains(top.Migration.Down, "ADD INDEX `jobs_touched` (touched)") {
		t.Errorf("down %q", top.Migration.Down)
	}
	if kinds["jobs_state_dup"] != "duplicate" {
		t.Errorf("jobs_state_dup: %q (recommendations %+v)", kinds["jobs_state_dup"], d.Recommendations)
	}
}

// On PostgreSQL 16+ the updated column's B-tree also gets a measured BRIN
// replacement: summarizing, so the updates that set its column can be HOT
// again while range reads keep an index. The database keeps its B-tree.
func TestAdviseMeasuresABrinReplacementOnSeventeen(t *testing.T) {
	t.Parallel()
	pgbench := testenv.Tool(t, "pgbench")
	srv := pgmatrix.Start(t, 17)
	if out, err := exec.Command(pgbench, "-i", "-s", "1", "-q", srv.DSN).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	db := srv.Open(t)
	if _, err := db.Exec(`create index acc_abalance on pgbench_accounts (abalance);
alter table pgbench_accounts set (fillfactor = 80)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("vacuum full pgbench_accounts"); err != nil {
		t.Fatal(err)
	}
	method := func() string {
		var m string
		if err := db.QueryRow(`select am.amname from pg_class c join pg_am am on am.oid = c.relam where c.relname = 'acc_abalance'`).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	db.Close() // nobody connected: the copies are TEMPLATE copies
	// This server has no pg_stat_statements: advise reads the UPDATE from
	// the script the command names.
	dir := t.TempDir()
	script := filepath.Join(dir, "update.sql")
	if err := os.WriteFile(script, []byte("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = (random() * 99999)::int + 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "a.json")
	if out, stderr, err := run(t, "advise", "--dsn", srv.DSN, "--format", "json", "-o", js, "-q", "--", pgbench, "-n", "-c", "1", "-t", "500", "-f", script, srv.DSN); err != nil {
		t.Fatalf("advise: %v\n%s\n%s", err, out, stderr)
	}
	db = srv.Open(t)
	if m := method(); m != "btree" {
		t.Errorf("acc_abalance on the database is now %s", m)
	}
	d := readAdvice(t, js)
	brin, drop := -1, -1
	for i, r := range d.Recommendations {
		switch {
		case r.Object == "acc_abalance" && r.Kind == "summarizing":
			brin = i
		case r.Object == "acc_abalance" && r.Kind == "updated_key":
			drop = i
		}
	}
	if brin < 0 || drop < 0 {
		t.Fatalf("recommendations %+v (skipped %+v): want acc_abalance dropped and replaced by BRIN", d.Recommendations, d.Skipped)
	}
	r := d.Recommendations[brin]
	if !strings.Contains(r.Migration.Up, "USING brin (\"abalance\")") || !strings.Contains(r.Migration.Down, "USING btree (abalance)") {
		t.Errorf("BRIN migration: up %q down %q", r.Migration.Up, r.Migration.Down)
	}
	// HOT before is none (the B-tree holds abalance); after, the updates
	// that found room on their page are HOT.
	hot := r.Measured["hot_ratio"]
	if hot.Before == nil || hot.After == nil || *hot.Before > 0.1 || *hot.After < 0.5 {
		t.Errorf("BRIN: HOT %+v, want none before and most after", hot)
	}
	lb := r.Measured["log_bytes/op"]
	if lb.Before == nil || lb.After == nil || *lb.After >= *lb.Before {
		t.Fatalf("BRIN: log bytes/op %+v, want lower after", lb)
	}
	t.Logf("BRIN for acc_abalance: HOT %.3f → %.3f, log bytes/op %.0f → %.0f (rank %d of %d)", *hot.Before, *hot.After, *lb.Before, *lb.After, brin+1, len(d.Recommendations))
}
