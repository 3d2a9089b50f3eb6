package sqlparse

import (
	"strings"
	"testing"
)

// The in-place proof's allowlist: what the catalog comparison and the rows'
// checksums show passes, everything else names itself; a trigger passes
// only on a table the same migration created.
func TestCoverageIsAnAllowlist(t *testing.T) {
	for _, c := range []struct {
		dialect, sql string
		want         []string // "" covered, else a fragment of the reason, per statement
	}{
		{Postgres, `set lock_timeout = '5s';
create table audit2 (id int);
create index a_ix on accounts (v);
alter table accounts add column note text, alter column v set not null;
insert into accounts values (1); update accounts set v = 1; delete from accounts;
create function f() returns trigger language plpgsql as $$begin return new; end$$;
create trigger t2 after insert on audit2 for each row execute function f();
select 1;
drop index a_ix;`, []string{"", "", "", "", "", "", "", "", "", "", ""}},
		{Postgres, `create rule r as on update to accounts do instead nothing;
create trigger t after update on accounts for each row execute function f();
create policy p on accounts using (true);
alter table accounts set (fillfactor = 50);
comment on table accounts is 'x';
grant select on accounts to public;
create extension hstore;
alter system set work_mem = '64MB';
create event trigger e on ddl_command_start execute function f();
create publication pub for all tables;
select setval('s', 10);
do $$begin perform 1; end$$;`, []string{"CREATE RULE", "CREATE TRIGGER on a table there before", "CREATE POLICY", "SetRelOptions", "COMMENT ON", "GRANT",
			"CREATE EXTENSION", "ALTER SYSTEM", "CREATE EVENT", "CREATE PUBLICATION", "setval", "DO"}},
		{MySQL, "CREATE TABLE audit2 (id int);\nCREATE INDEX a ON accounts (v);\nALTER TABLE accounts ADD COLUMN note text;\nUPDATE accounts SET v = 1;\nSET SESSION sql_mode = '';\nCREATE TRIGGER t2 AFTER INSERT ON audit2 FOR EACH ROW SET @x = 1;",
			[]string{"", "", "", "", "", ""}},
		{MySQL, "CREATE TRIGGER t AFTER UPDATE ON accounts FOR EACH ROW INSERT INTO audit VALUES (NEW.id);\nCREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM accounts;\nGRANT SELECT ON db.* TO u;\nSET GLOBAL max_connections = 10;\nALTER TABLE accounts COMMENT = 'x';\nCREATE OR REPLACE PROCEDURE p() BEGIN END;\nCREATE PROCEDURE p() BEGIN END",
			[]string{"CREATE TRIGGER on a table there before", "CREATE EVENT", "GRANT", "SET GLOBAL", "COMMENT", "CREATE OR", ""}},
	} {
		st, err := Split(c.dialect, c.sql)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != len(c.want) {
			t.Fatalf("%d statements, want %d: %q", len(st), len(c.want), c.sql)
		}
		cov := NewCoverage(c.dialect)
		for i, s := range st {
			got := cov.Uncovered(s)
			if (c.want[i] == "") != (got == "") || !strings.Contains(got, c.want[i]) {
				t.Errorf("%s %q: %q, want %q", c.dialect, s.Text, got, c.want[i])
			}
		}
	}
}
