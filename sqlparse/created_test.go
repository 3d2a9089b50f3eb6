package sqlparse

import (
	"reflect"
	"strings"
	"testing"
)

// Routines, triggers, events and sequences MySQL/MariaDB create by name are
// dropped by name.
func TestInvertMySQLRoutines(t *testing.T) {
	t.Parallel()
	st, err := Split(MySQL, "DELIMITER //\nCREATE DEFINER=`root`@`%` PROCEDURE touch(IN p INT) BEGIN UPDATE jobs SET t = 1 WHERE id = p; END//\n"+
		"CREATE FUNCTION app.f() RETURNS INT DETERMINISTIC RETURN 1//\nCREATE TRIGGER jobs_bi BEFORE INSERT ON jobs FOR EACH ROW SET NEW.t = 0//\n"+
		"CREATE OR REPLACE PROCEDURE p2() SELECT 1//\nDELIMITER ;\n")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := Invert(MySQL, st)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DROP TRIGGER `jobs_bi`", "DROP FUNCTION `app`.`f`", "DROP PROCEDURE `touch`"}
	if !reflect.DeepEqual(inv.Statements, want) || len(inv.Refused) != 1 || !strings.Contains(inv.Refused[0].Reason, "OR REPLACE") {
		t.Errorf("undo %q, refused %v", inv.Statements, inv.Refused)
	}
}

// A table created and filled in the same statements is undone by its DROP
// TABLE alone; a data change anywhere else is still refused.
func TestInvertFillsOfCreatedTables(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dialect, src string
		undo         []string
		refused      []string // statements refused, by their first words
	}{
		{Postgres, `create table jobs (id int primary key, touched_at int not null default 0) with (fillfactor = 70);
insert into jobs select g, 0 from generate_series(1, 500) g;
update jobs set touched_at = 1 where id = 2;
alter table jobs alter column touched_at type bigint;
copy jobs from stdin;
insert into public.jobs values (1000, 0);
insert into other values (1);
with d as (delete from other returning *) insert into jobs select 1, 0 from d;
create index jobs_touched on jobs (touched_at);`,
			[]string{"DROP INDEX jobs_touched", "DROP TABLE jobs"},
			[]string{"insert into public.jobs", "insert into other", "with d as"}},
		{MySQL, "CREATE TABLE jobs (id INT PRIMARY KEY, touched INT);\n" +
			"INSERT INTO jobs SELECT seq, 0 FROM seq_1_to_200;\n" +
			"UPDATE jobs j SET touched = 1 WHERE id = 2;\n" +
			"DELETE FROM jobs WHERE id = 3;\n" +
			"ALTER TABLE jobs MODIFY touched BIGINT;\n" +
			"UPDATE jobs JOIN other ON other.id = jobs.id SET jobs.touched = 2;\n" +
			"DELETE jobs, other FROM jobs JOIN other USING (id);\n" +
			"ALTER TABLE jobs RENAME TO jobs2, MODIFY touched INT;\n" +
			"INSERT INTO other VALUES (1);\n" +
			"CREATE TABLE IF NOT EXISTS maybe (id INT);\n" +
			"INSERT INTO maybe VALUES (1);",
			[]string{"DROP TABLE `jobs`"},
			[]string{"UPDATE jobs JOIN", "DELETE jobs, other", "ALTER TABLE jobs RENAME", "INSERT INTO other", "CREATE TABLE IF NOT EXISTS", "INSERT INTO maybe"}},
	}
	for _, c := range cases {
		st, err := Split(c.dialect, c.src)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := Invert(c.dialect, st)
		if err != nil {
			t.Fatal(err)
		}
		var refused []string
		for _, r := range inv.Refused {
			for _, p := range c.refused {
				if strings.HasPrefix(r.Statement, p) {
					refused = append(refused, p)
				}
			}
		}
		if !reflect.DeepEqual(inv.Statements, c.undo) || !reflect.DeepEqual(refused, c.refused) || len(inv.Refused) != len(c.refused) {
			t.Errorf("%s: undo %q (want %q)\nrefused %v (want %v)", c.dialect, inv.Statements, c.undo, inv.Refused, c.refused)
		}
	}
}
