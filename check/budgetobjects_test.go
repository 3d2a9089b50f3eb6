package check

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// What the acceptance's closed-port runs hold: every bad budget, and no
// budget at all, is refused by Gate, which runs before anything connects.
func TestGateRefusesBadBudgetsAndNoBudget(t *testing.T) {
	t.Parallel()
	m := writeSQL(t, "create index acct_status on accounts (status);")
	base := Request{Migrations: []string{m}, Command: []string{"true"}, Repeat: 1}
	for budgets, want := range map[string]string{
		"hot_ratio>=90":     "write 0.9",
		"log_bytes/op<=+50": "+50B",
		"":                  "--report-only",
	} {
		r := base
		if budgets != "" {
			r.Budgets = []string{budgets}
		}
		_, err := r.Gate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", budgets, err, want)
			continue
		}
		if strings.Contains(strings.ToLower(err.Error()), "connect") {
			t.Errorf("%q: the refusal reads like a connection error: %v", budgets, err)
		}
	}
	r := base
	r.ReportOnly = true
	g, err := r.Gate()
	if err != nil || len(g.Budgets) != 0 {
		t.Fatalf("--report-only without budgets: %v", err)
	}
	r.Budgets = []string{"hot_ratio>=0.9", "log_bytes/op<=+5%"}
	if g, err = r.Gate(); err != nil || !g.Advisory["hot_ratio>=0.9"] || !g.Advisory["log_bytes/op<=+5%"] {
		t.Fatalf("--report-only makes every budget advisory: %v %v", g, err)
	}
}

// The built-in workload's objects are known before it runs: a typo is
// refused with the closest names, a name the migration creates is not.
func TestGateChecksBuiltinObjectNames(t *testing.T) {
	t.Parallel()
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	m := writeSQL(t, "create index wa_lastref on offline_user_session (last_session_refresh);")
	r := Request{Migrations: []string{m}, Workload: wl, Variant: "baseline", Concurrency: 1, Repeat: 1}
	for _, ok := range []string{"hot_ratio[offline_user_session]>=0.9", "leaf_inserts/op[wa_lastref]<=+0%",
		"leaf_inserts[idx_user_session_expiration_last_refresh]<=+5%", "index_entries/op[offline_client_session]<=+0%", "hot_ratio>=0.9"} {
		r.Budgets = []string{ok}
		if _, err := r.Gate(); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	r.Budgets = []string{"hot_ratio[offline_user_sesion]>=0.9"}
	_, err := r.Gate()
	if err == nil || !strings.Contains(err.Error(), "did you mean offline_user_session") {
		t.Fatalf("typo: %v", err)
	}
	r.Budgets = []string{"hot_ratio[accounts]>=0.9"}
	if _, err := r.Gate(); err == nil || !strings.Contains(err.Error(), "-- COMMAND") {
		t.Fatalf("a user table under the built-in workload: %v", err)
	}
}

func TestJudgeObjects(t *testing.T) {
	t.Parallel()
	known := []string{"accounts", "public.accounts", "orders", "public.orders", "accounts_pkey", "orders_pkey"}
	created := namedIn([]sqlfile.File{{Statements: statements(t, "create index acct_v on accounts (v);")}})
	bs, err := budget.ParseAll([]string{"hot_ratio[acounts]>=0.9"})
	if err != nil {
		t.Fatal(err)
	}
	err = judgeObjects(bs, known, "in the database", created, func(string, ...any) {})
	if err == nil || !strings.Contains(err.Error(), "did you mean accounts?") || !strings.Contains(err.Error(), `"acounts"`) {
		t.Fatalf("%v", err)
	}
	var notes []string
	note := func(f string, a ...any) { notes = append(notes, f) }
	for _, s := range []string{"hot_ratio[public.accounts]>=0.9", "hot_ratio[ACCOUNTS]>=0.9", "leaf_inserts/op[acct_v]<=+10%", "migration.log_bytes<=1MB"} {
		bs, _ := budget.ParseAll([]string{s})
		if err := judgeObjects(bs, known, "in the database", created, note); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "before the migration") {
		t.Errorf("a budget on an object the migration creates says how it is judged: %q", notes)
	}
	if got := didYouMean("zzzzzzzz", known); !strings.Contains(got, "there are: accounts, accounts_pkey, orders") {
		t.Errorf("nothing close: list what there is: %q", got)
	}
}

func statements(t *testing.T, sql string) []sqlparse.Statement {
	t.Helper()
	st, err := sqlparse.Split("postgres", sql)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
