package check

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check/sqlfile"
	_ "github.com/writeamp/writeamp/collectors/mysql" // registers the collectors a measurement reads
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
)

// On MariaDB, check applies --schema and --migration as the mysql client
// would (a backslash-escaped quote, DELIMITER, a goose file's Up section
// only) and warns before running that the new index is on a column the
// wrapped workload updates.
func TestGateMariaDBSplitsAndWarns(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	client := testenv.Tool(t, "mariadb", "mysql")
	ctx := context.Background()
	d, _ := dialects.Get(my.Name)
	admin, err := d.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	testenv.Reachable(t, admin, "MariaDB")
	name := fmt.Sprintf("wa_check_split_%d", os.Getpid())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec("DROP DATABASE IF EXISTS " + name)
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("WRITEAMP_TEST_MYSQL_DSN must be a URL for this test")
	}
	u.Path = "/" + name
	db, err := d.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	target, err := dialects.NewTarget(ctx, d, db)
	if err != nil {
		t.Fatal(err)
	}
	win, err := measure.NewWindow(target, nil)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	put := func(n, text string) string {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var work strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&work, "UPDATE jobs SET touched_at = touched_at + 1 WHERE id = %d;\n", i)
	}
	workSQL := put("work.sql", work.String())
	schema, err := sqlfile.Load("--schema", []string{put("base.sql", `CREATE TABLE jobs (id INT PRIMARY KEY, note TEXT, touched_at INT NOT NULL DEFAULT 0);
INSERT INTO jobs SELECT seq, 'O\'Reilly; x', 0 FROM seq_1_to_200;
DELIMITER //
CREATE PROCEDURE touch(IN p INT) BEGIN UPDATE jobs SET touched_at = touched_at + 1 WHERE id = p; SELECT 1; END//
DELIMITER ;
`)})
	if err != nil {
		t.Fatal(err)
	}
	mig, err := sqlfile.Load("--migration", []string{put("001_touched.sql", "-- +goose Up\nCREATE INDEX jobs_touched ON jobs (touched_at);\n-- +goose Down\nDROP TABLE jobs;\n")})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-h", u.Hostname(), "-P", u.Port(), "-u", u.User.Username()}
	if pw, ok := u.User.Password(); ok {
		args = append(args, "-p"+pw)
	}
	// KeepMigration: what was applied is read back below (the restore has
	// tests of its own).
	g := &Gate{Window: win, Schema: schema, Migration: mig, KeepMigration: true,
		Mode: &Command{Argv: append([]string{"sh", "-c", client + ` "$@" ` + name + ` < "$0"`, workSQL}, args...)}}
	out, err := g.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Static) != 1 || out.Static[0].Index != "jobs_touched" || !strings.Contains(out.Static[0].Text, "InnoDB has no HOT") {
		t.Fatalf("static warnings: %+v", out.Static)
	}
	var note string
	var routines, indexes int
	if err := db.QueryRow("SELECT note FROM jobs WHERE id = 1").Scan(&note); err != nil || note != "O'Reilly; x" {
		t.Fatalf("the escaped quote was split: %q %v", note, err)
	}
	db.QueryRow("SELECT count(*) FROM information_schema.routines WHERE routine_schema = ? AND routine_name = 'touch'", name).Scan(&routines)
	db.QueryRow("SELECT count(*) FROM information_schema.statistics WHERE table_schema = ? AND index_name = 'jobs_touched'", name).Scan(&indexes)
	if routines != 1 || indexes != 1 {
		t.Fatalf("procedure %d, index %d (the goose Down section must not run)", routines, indexes)
	}
}
