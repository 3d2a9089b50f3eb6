package main

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// inPlace is --in-place once check has it (until then the in-place path
// is what -- COMMAND does by default).
func inPlace(t *testing.T) []string {
	t.Helper()
	out, errOut, _ := run(t, "check", "--help")
	if strings.Contains(out+errOut, "--in-place") {
		return []string{"--in-place"}
	}
	return nil
}

type proofDoc struct {
	Restore struct {
		State    string   `json:"state"`
		Ran      []string `json:"ran"`
		Rows     []string `json:"rows_changed"`
		Unproven []string `json:"unproven"`
		Skipped  []string `json:"not_run"`
	} `json:"restore"`
}

// In place, the proof never turns a gap into a PASS (issue 41, point 3):
// a down the user gave runs even when the migration changed nothing the
// catalog lists (a rule that discards every UPDATE stayed before); a
// statement the proof does not cover is refused before anything is
// applied unless a down pairs with it; rows a trigger the migration
// created wrote into a table that existed before (and that the command
// does not write) make the restore not as it was.
func TestCheckInPlaceProofHasNoGaps(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := privateScratchDB(t, "wa_test_inplace_proof")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table accounts (id int primary key, v int not null default 0) with (fillfactor = 50);
insert into accounts select g, 0 from generate_series(1, 200) g;
create table audit (id serial primary key, note text)`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	work := []string{"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", "update accounts set v = v + 1 where id <= 50"}
	common := append([]string{"check", "-q", "--dsn", dsn, "--format", "json", "--budget", "log_bytes/op<=+1000%"}, inPlace(t)...)
	count := func(q string) int {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// A rule changes nothing the catalog lists: its down runs all the same.
	rule := write(t, dir, "0001_rule.sql", "create rule accounts_nothing as on update to accounts do instead nothing;")
	write(t, dir, "0001_rule.down.sql", "drop rule accounts_nothing on accounts;")
	out, _, err := run(t, append(append(append([]string{}, common...), "--migration", rule), work...)...)
	var d proofDoc
	json.Unmarshal([]byte(out), &d)
	if n := count("select count(*) from pg_rules where rulename = 'accounts_nothing'"); n != 0 || len(d.Restore.Ran) == 0 || exitCode(err) >= check.ExitBadInput {
		t.Errorf("a rule with its down file: %d rules left, restore %+v, exit %d (%v)", n, d.Restore, exitCode(err), err)
	}

	// Statements check could invert but whose effect the proof does not
	// cover, without a down: refused before anything is applied, each
	// named by file, line and statement.
	bare := write(t, dir, "0002_bare.sql", `create index accounts_v on accounts (v);
create function accounts_touch() returns trigger language plpgsql as $$begin return new; end$$;
create trigger accounts_touch before update on accounts for each row execute function accounts_touch();
create extension if not exists pg_trgm;`)
	_, _, err = run(t, append(append(append([]string{}, common...), "--migration", bare), work...)...)
	for _, want := range []string{"0002_bare.sql:3", "CREATE TRIGGER on a table there before", "0002_bare.sql:4", "CREATE EXTENSION", "nothing was applied"} {
		if exitCode(err) != check.ExitBadInput || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("uncovered statements without a down: exit %d, want %d naming %q: %v", exitCode(err), check.ExitBadInput, want, err)
		}
	}
	if n := count("select count(*) from pg_indexes where indexname = 'accounts_v'") + count("select count(*) from pg_proc where proname = 'accounts_touch'"); n != 0 {
		t.Errorf("a refused check applied %d of its statements", n)
	}

	// A trigger writes into audit while the command runs after the
	// migration; the down drops the trigger but not those rows.
	trig := write(t, dir, "0003_audit.sql", `create function accounts_audit() returns trigger language plpgsql as $$
begin insert into audit (note) values ('updated ' || new.id); return new; end $$;
create trigger accounts_audit after update on accounts for each row execute function accounts_audit();`)
	write(t, dir, "0003_audit.down.sql", "drop trigger accounts_audit on accounts;\ndrop function accounts_audit();")
	out, _, err = run(t, append(append(append([]string{}, common...), "--migration", trig), work...)...)
	d = proofDoc{}
	json.Unmarshal([]byte(out), &d)
	rows := strings.Join(d.Restore.Rows, "\n")
	if exitCode(err) != check.ExitNotAsItWas || !strings.Contains(rows, "public.audit") || !strings.Contains(rows, "what the migration created") {
		t.Errorf("a trigger's rows in audit: exit %d (want %d), restore %+v", exitCode(err), check.ExitNotAsItWas, d.Restore)
	}
	if n := count("select count(*) from pg_trigger where tgname = 'accounts_audit'"); n != 0 {
		t.Errorf("the trigger stayed (%d): the down must still commit", n)
	}
	if n := count("select count(*) from audit"); n != 50 {
		t.Errorf("audit has %d rows, want the 50 the trigger wrote (the test's own premise)", n)
	}
}
