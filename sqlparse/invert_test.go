package sqlparse

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readScript(t *testing.T, dialect, path string) *Script {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScript(dialect, string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}

func TestInvertPostgresGoose(t *testing.T) {
	t.Parallel()
	sc := readScript(t, Postgres, "postgres/20240611093000_billing.sql")
	if !sc.Annotated || len(sc.Up) != 9 || len(sc.Down) != 5 {
		t.Fatalf("split: %d up, %d down", len(sc.Up), len(sc.Down))
	}
	inv, err := Invert(Postgres, sc.Up)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"DROP VIEW billing.open_invoice",
		"ALTER TABLE jobs RENAME COLUMN remark TO note",
		"DROP INDEX jobs_lower_note",
		"ALTER TABLE jobs DROP CONSTRAINT jobs_priority_range, DROP priority",
		"DROP INDEX CONCURRENTLY billing.invoice_open_by_customer",
		"DROP SEQUENCE billing.invoice_no",
		"DROP TYPE billing.currency",
		"DROP TABLE billing.invoice",
		"DROP SCHEMA billing",
	}
	if len(inv.Refused) != 0 || !reflect.DeepEqual(inv.Statements, want) {
		t.Fatalf("inverse:\n%s\nrefused %v", strings.Join(inv.Statements, "\n"), inv.Refused)
	}
}

func TestInvertPostgresRefuses(t *testing.T) {
	t.Parallel()
	sc := readScript(t, Postgres, "postgres/20240612100000_backfill.sql")
	inv, err := Invert(Postgres, sc.Up)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range inv.Refused {
		got = append(got, r.String())
	}
	want := []string{
		"line 2 (ALTER TABLE jobs ALTER COLUMN priority TYPE integer): ALTER COLUMN … TYPE (the data is converted): the state before it is not in the migration",
		"line 3 (UPDATE jobs SET priority = 5 WHERE status = 'urgent'): it changes data; the rows as they were are not in the migration",
		"line 4 (CREATE INDEX ON jobs (touched_at)): an index without a name: PostgreSQL picks one, which the migration's text does not say",
		"line 5 (CREATE TABLE IF NOT EXISTS audit (id bigint)): IF NOT EXISTS: the object may have been there before, so dropping it could remove what the migration did not create",
		"line 6 (DROP INDEX jobs_lower_note): DROP removes a definition (and its data) that the migration does not contain",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("refused:\n%s", strings.Join(got, "\n"))
	}
	if len(inv.Statements) != 0 {
		t.Fatalf("SET needs no undo: %q", inv.Statements)
	}
}

func TestInvertMariaDB(t *testing.T) {
	t.Parallel()
	sc := readScript(t, MySQL, "mariadb/000002_customers.up.sql")
	inv, err := Invert(MySQL, sc.Up)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"RENAME TABLE `client` TO `customer`",
		"DROP VIEW `open_jobs`",
		"ALTER TABLE `jobs` RENAME COLUMN `remark` TO `note`",
		"ALTER TABLE `jobs` DROP CONSTRAINT `jobs_priority_range`, DROP INDEX `jobs_priority`, DROP COLUMN `priority`",
		"DROP INDEX `customer_email_uq` ON `customer`",
		"DROP TABLE `customer`",
	}
	if len(inv.Refused) != 0 || !reflect.DeepEqual(inv.Statements, want) {
		t.Fatalf("inverse:\n%s\nrefused %v", strings.Join(inv.Statements, "\n"), inv.Refused)
	}

	sc = readScript(t, MySQL, "mariadb/000003_routine.up.sql")
	if len(sc.Up) != 5 || !strings.HasSuffix(sc.Up[0].Text, "END") {
		t.Fatalf("DELIMITER split: %+v", sc.Up)
	}
	inv, err = Invert(MySQL, sc.Up)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range inv.Refused {
		got = append(got, r.Reason)
	}
	want = []string{
		"it changes data; the rows as they were are not in the migration",
		"ALTER TABLE MODIFY: the state before it is not in the migration",
		"an index without a name: the server picks one, which the migration's text does not say",
		ifNotExistsUnasked,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("refused:\n%s", strings.Join(got, "\n"))
	}
}
