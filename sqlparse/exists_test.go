package sqlparse

import (
	"reflect"
	"strings"
	"testing"
)

// invertWith splits src and inverts it with a database that holds there
// (Object.String() of each) and records what was asked.
func invertWith(t *testing.T, dialect, earlier, src string, there ...string) (*Inverse, []string) {
	t.Helper()
	var asked []string
	ex := NewExistence(dialect, func(o Object) (bool, error) {
		asked = append(asked, o.String())
		for _, s := range there {
			if strings.EqualFold(s, o.String()) {
				return true, nil
			}
		}
		return false, nil
	})
	before, err := Split(dialect, earlier)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := Split(dialect, src)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := InvertWith(dialect, before, stmts, ex.After(before))
	if err != nil {
		t.Fatal(err)
	}
	return inv, asked
}

func reasons(inv *Inverse) string {
	var out []string
	for _, r := range inv.Refused {
		out = append(out, r.Reason)
	}
	return strings.Join(out, "\n")
}

// existenceCase is a migration (after earlier statements) against a
// database holding there: its undo, or why it is refused.
type existenceCase struct {
	name, earlier, src string
	there              []string
	undo               []string
	refused            string
}

func checkExistence(t *testing.T, dialect string, cases []existenceCase) {
	t.Helper()
	for _, c := range cases {
		inv, _ := invertWith(t, dialect, c.earlier, c.src, c.there...)
		if got := reasons(inv); got != c.refused {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.refused)
			continue
		}
		if c.refused == "" && !reflect.DeepEqual(inv.Statements, c.undo) {
			t.Errorf("%s: undo %q, want %q", c.name, inv.Statements, c.undo)
		}
	}
}

func TestExistencePostgres(t *testing.T) {
	t.Parallel()
	checkExistence(t, Postgres, []existenceCase{
		{"CREATE INDEX IF NOT EXISTS, missing", "", "create index if not exists q_t on s.q (t)", nil,
			[]string{"DROP INDEX s.q_t"}, ""},
		{"CREATE INDEX IF NOT EXISTS, there", "", "create index if not exists q_t on q (t)", []string{"index q_t on q"}, nil, ""},
		{"CREATE TABLE IF NOT EXISTS, there", "", "create table if not exists audit (id int)", []string{"relation audit"}, nil, ""},
		{"CREATE TABLE IF NOT EXISTS, missing", "", "create table if not exists audit (id int)", nil, []string{"DROP TABLE audit"}, ""},
		{"ADD COLUMN IF NOT EXISTS, one there", "", "alter table q add column if not exists a int, add column b int", []string{"column a on q"},
			[]string{"ALTER TABLE q DROP b"}, ""},
		{"DROP TABLE IF EXISTS, missing", "", "drop table if exists old_a, public.old_b", nil, nil, ""},
		{"DROP TABLE IF EXISTS, there", "", "drop table if exists old_a, public.old_b", []string{"relation public.old_b"}, nil,
			"DROP removes a definition (and its data) that the migration does not contain (relation public.old_b exists, so IF EXISTS drops it)"},
		{"DROP INDEX IF EXISTS then CREATE INDEX", "", "drop index if exists q_t; create index q_t on q (t)", nil, []string{"DROP INDEX q_t"}, ""},
		{"created by the statements before", "create table q (t int); create index q_t on q (t);", "create index if not exists q_t on q (t)", nil, nil, ""},
		{"after a RENAME", "", "alter table q rename to r; create table if not exists q (id int)", nil, nil,
			"IF NOT EXISTS: whether relation q exists then is not known beforehand: an earlier statement renames tables"},
		{"after SET search_path", "", "set search_path = app; create table if not exists q (id int)", nil, nil,
			"IF NOT EXISTS: whether relation q exists then is not known beforehand: an earlier statement sets search_path"},
	})
	// Without a database to ask, IF NOT EXISTS and DROP are refused as before.
	stmts, _ := Split(Postgres, "create index if not exists q_t on q (t); drop table if exists old")
	inv, _ := Invert(Postgres, stmts)
	if len(inv.Refused) != 2 || inv.Refused[0].Reason != ifNotExistsUnasked {
		t.Errorf("no database: %v", inv.Refused)
	}
}

func TestExistenceMySQL(t *testing.T) {
	t.Parallel()
	checkExistence(t, MySQL, []existenceCase{
		{"CREATE INDEX IF NOT EXISTS, missing", "", "create index if not exists q_t on q (t)", nil, []string{"DROP INDEX `q_t` ON `q`"}, ""},
		{"CREATE INDEX IF NOT EXISTS, there", "", "create index if not exists q_t on q (t)", []string{"index q_t on q"}, nil, ""},
		{"ADD INDEX IF NOT EXISTS, there", "", "alter table q add column if not exists a int, add index if not exists q_a (a)",
			[]string{"index q_a on q"}, []string{"ALTER TABLE `q` DROP COLUMN `a`"}, ""},
		{"CREATE TABLE IF NOT EXISTS … SELECT, there", "", "create table if not exists t2 select * from q", []string{"table t2"}, nil,
			"CREATE TABLE IF NOT EXISTS … SELECT on a table that exists may copy rows into it"},
		{"CREATE DATABASE IF NOT EXISTS, missing", "", "create database if not exists app2", nil, []string{"DROP DATABASE `app2`"}, ""},
		{"DROP TABLE IF EXISTS, missing", "", "drop table if exists a, b", nil, nil, ""},
		{"DROP TABLE IF EXISTS, there", "", "drop table if exists a, b", []string{"table b"}, nil,
			"DROP removes a definition (and its data) that the migration does not contain (table b exists, so IF EXISTS drops it)"},
		{"DROP INDEX IF EXISTS, missing", "", "drop index if exists q_t on q", nil, nil, ""},
		{"ALTER TABLE DROP COLUMN IF EXISTS, missing", "", "alter table q drop column if exists a", nil, nil, ""},
		{"DROP PROCEDURE IF EXISTS then CREATE", "", "drop procedure if exists p;\ncreate procedure p() select 1", nil, []string{"DROP PROCEDURE `p`"}, ""},
		{"created by the statements before", "create table q (t int); alter table q add index q_t (t);", "create index if not exists q_t on q (t)", nil, nil, ""},
	})
}
