package advise

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/check"
	_ "github.com/writeamp/writeamp/dialects/mysql"
	_ "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/result"
)

func index(name, table, def string, info map[string]string, scans, entries float64) result.Object {
	in := map[string]string{"definition": def, "method": "btree"}
	for k, v := range info {
		in[k] = v
	}
	return result.Object{Schema: "public", Name: name, Table: table, Info: in, Metrics: map[string]result.Metric{
		"scans": result.New(scans, result.Exact, "idx_scan"), "leaf_inserts": result.New(entries, result.Exact, "x"), "log_bytes": result.New(entries*100, result.Exact, "x")}}
}

func pgbenchRun() *result.Run {
	return &result.Run{
		Operations: map[string]int64{"row_writes": 8000}, MainOperation: "row_writes",
		Tables: []result.Object{{Schema: "public", Name: "pgbench_accounts", Metrics: map[string]result.Metric{
			"rows_updated": result.New(2000, result.Exact, "x"), "newpage_updates": result.New(0, result.Exact, "x"), "non_hot_updates": result.New(2000, result.Exact, "x")}},
			{Schema: "public", Name: "queue", Metrics: map[string]result.Metric{"rows_updated": result.New(100, result.Exact, "x"), "newpage_updates": result.New(60, result.Exact, "x")}}},
		Indexes: []result.Object{
			index("pgbench_accounts_pkey", "pgbench_accounts", "CREATE UNIQUE INDEX pgbench_accounts_pkey ON public.pgbench_accounts USING btree (aid)", map[string]string{"unique": "true"}, 0, 2000),
			index("acc_aid_dup", "pgbench_accounts", "CREATE INDEX acc_aid_dup ON public.pgbench_accounts USING btree (aid)", nil, 4000, 2000),
			index("acc_abalance", "pgbench_accounts", "CREATE INDEX acc_abalance ON public.pgbench_accounts USING btree (abalance)", nil, 0, 2000),
			index("acc_bid_abal", "pgbench_accounts", "CREATE INDEX acc_bid_abal ON public.pgbench_accounts USING btree (bid, abalance DESC) WHERE (bid > 0)", nil, 10, 2000),
			index("acc_read", "pgbench_accounts", "CREATE INDEX acc_read ON public.pgbench_accounts USING btree (filler)", nil, 0, 2000),
		},
	}
}

func TestProposeFindsDuplicateUnusedUpdatedKeyAndFillfactor(t *testing.T) {
	run := pgbenchRun()
	orig := map[string]Original{"public.acc_read": {Scans: 7}, "public.pgbench_accounts_pkey": {Constraint: "pgbench_accounts_pkey"}, "public.acc_abalance": {}}
	d := Diagnosis{Dialect: "postgres", Run: run, Indexes: IndexesOf(run, orig), Updates: []Update{{Table: "pgbench_accounts", Columns: []string{"abalance"}, Source: "work.sql"}}}
	cs, err := Propose(d, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Candidate{}
	var order []string
	for _, c := range cs {
		got[c.Change] = c
		order = append(order, c.Change)
	}
	want := []string{"drop index acc_abalance", "drop index acc_bid_abal", "drop index acc_aid_dup", "fillfactor 90 on queue", "fillfactor 70 on queue"}
	if !slices.Equal(order, want) {
		t.Fatalf("candidates %q, want %q", order, want)
	}
	if c := got["drop index acc_abalance"]; c.Kind != UpdatedKey || len(c.Why) != 2 || !strings.Contains(c.Why[1], "since its statistics reset") {
		t.Errorf("acc_abalance: %+v (updated key first, unused as a second reason)", c)
	}
	if c := got["drop index acc_aid_dup"]; c.Kind != Duplicate || !strings.Contains(c.Why[0], "pgbench_accounts_pkey has the same key (aid)") {
		t.Errorf("acc_aid_dup: %+v", c)
	}
	if c := got["drop index acc_abalance"]; c.Up != "DROP INDEX \"public\".\"acc_abalance\";\n" || c.Down != "CREATE INDEX acc_abalance ON public.pgbench_accounts USING btree (abalance);\n" {
		t.Errorf("acc_abalance migration: up %q down %q", c.Up, c.Down)
	}
	if c := got["fillfactor 70 on queue"]; !strings.Contains(c.Up, "SET (fillfactor = 70)") || !strings.Contains(c.Down, "RESET (fillfactor)") {
		t.Errorf("fillfactor: %+v", c)
	}
	// read on the database itself (acc_read) or backing a constraint: never dropped
	for _, n := range []string{"drop index acc_read", "drop index pgbench_accounts_pkey"} {
		if _, ok := got[n]; ok {
			t.Errorf("%s proposed", n)
		}
	}
	if cs, _ := Propose(d, 2); len(cs) != 2 || cs[0].Change != "drop index acc_abalance" {
		t.Errorf("--max-candidates 2 kept %+v", cs)
	}
}

func TestBuiltinMigrationsAreUnqualifiedAndNoteTheApplicationFix(t *testing.T) {
	run := &result.Run{Indexes: []result.Object{{Schema: "writeamp_rt_1_baseline", Name: "idx_exp", Table: "offline_user_session",
		Info:    map[string]string{"definition": "CREATE INDEX idx_exp ON writeamp_rt_1_baseline.offline_user_session USING btree (realm_id, last_session_refresh)", "method": "btree"},
		Metrics: map[string]result.Metric{"scans": result.New(3, result.Exact, "x")}}}}
	d := Diagnosis{Dialect: "postgres", Builtin: true, Run: run, Indexes: IndexesOf(run, nil), OtherVariants: []string{"coarse"},
		Updates: []Update{{Table: "offline_user_session", Columns: []string{"LAST_SESSION_REFRESH"}, Source: "statement rt_update_user_session"}}}
	cs, err := Propose(d, 5)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	c := cs[0]
	if c.Up != "DROP INDEX \"idx_exp\";\n" || c.Down != "CREATE INDEX idx_exp ON offline_user_session USING btree (realm_id, last_session_refresh);\n" {
		t.Errorf("up %q down %q", c.Up, c.Down)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "--variant coarse") {
		t.Errorf("notes %q", c.Notes)
	}
}

func TestMySQLMigrationsAlterTheTable(t *testing.T) {
	run := &result.Run{Indexes: []result.Object{
		{Schema: "app", Name: "PRIMARY", Table: "t", Info: map[string]string{"index_name": "PRIMARY", "columns": "id", "definition": "(id)", "primary": "true"}},
		{Schema: "app", Name: "k_c", Table: "t", Info: map[string]string{"index_name": "k_c", "columns": "c", "definition": "(c)"}, Metrics: map[string]result.Metric{"scans": result.New(0, result.Exact, "x")}},
		// nobody counted its reads (performance_schema off): not called unused
		{Schema: "app", Name: "k_d", Table: "t", Info: map[string]string{"index_name": "k_d", "columns": "d", "definition": "(d)"}, Metrics: map[string]result.Metric{}},
	}}
	cs, err := Propose(Diagnosis{Dialect: "mysql", Run: run, Indexes: IndexesOf(run, nil)}, 5)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	if cs[0].Up != "ALTER TABLE `app`.`t` DROP INDEX `k_c`;\n" || cs[0].Down != "ALTER TABLE `app`.`t` ADD INDEX `k_c` (c);\n" {
		t.Errorf("up %q down %q", cs[0].Up, cs[0].Down)
	}
}

func TestKeyColumns(t *testing.T) {
	for def, want := range map[string]string{
		"CREATE INDEX a ON s.t USING btree (x, \"Y\" DESC NULLS LAST) INCLUDE (z)":     "x,y",
		"CREATE INDEX a ON s.t USING btree (lower((email)::text))":                     "lower((email)::text)",
		"CREATE INDEX a ON s.t USING gin (doc jsonb_path_ops) WHERE (doc IS NOT NULL)": "doc",
	} {
		cols, partial := keyColumns(def, false)
		if strings.Join(cols, ",") != want {
			t.Errorf("%s: %q, want %q", def, cols, want)
		}
		if partial != strings.Contains(def, "WHERE") {
			t.Errorf("%s: partial %v", def, partial)
		}
	}
}

func TestRankRendersAndWritesMigrations(t *testing.T) {
	s := func(v float64) *float64 { return &v }
	rep := &Report{PerOp: "refresh", Workload: "w", Server: "PostgreSQL 15"}
	rep.Recommendations = []Recommendation{
		{Object: "b", Change: "drop index b", Kind: Unused, Saving: s(0.05), Summary: "drop index b saves 5.0% WAL per refresh", Migration: Migration{Up: "DROP INDEX b;\n", Down: "CREATE INDEX b ON t (x);\n"},
			Measured: map[string]Metric{"log_bytes/op": {Before: s(100), After: s(95), Exactness: result.Derived, Source: "wal", Unit: "bytes"}}},
		{Object: "a", Change: "drop index a", Kind: UpdatedKey, Saving: s(0.4), Summary: "drop index a saves 40.0% WAL per refresh", Migration: Migration{Up: "DROP INDEX a;\n", Down: "CREATE INDEX a ON t (y);\n"}},
		{Object: "c", Change: "drop index c", Kind: Unused},
	}
	Rank(rep.Recommendations)
	if rep.Recommendations[0].Object != "a" || rep.Recommendations[1].Object != "b" || rep.Recommendations[2].Rank != 3 {
		t.Fatalf("ranked %+v", rep.Recommendations)
	}
	var j bytes.Buffer
	if err := Render(&j, rep, "json", 0); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Recommendations []struct {
			Object    string
			Migration struct{ Up, Down string }
			Measured  map[string]struct {
				Before, After *float64
				Exactness     string
			}
		}
	}
	if err := json.Unmarshal(j.Bytes(), &back); err != nil || back.Recommendations[1].Measured["log_bytes/op"].Exactness != "derived" || back.Recommendations[0].Migration.Up != "DROP INDEX a;\n" {
		t.Fatalf("json %s: %v", j.String(), err)
	}
	var tb bytes.Buffer
	if err := Render(&tb, rep, "table", 60); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(tb.String(), "\n") {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("line of %d columns at width 60: %q", n, l)
		}
	}
	if !strings.Contains(tb.String(), "1. drop index a saves 40.0% WAL per refresh") {
		t.Errorf("findings first:\n%s", tb.String())
	}
	dir := t.TempDir()
	if err := WriteMigrations(dir, rep); err != nil {
		t.Fatal(err)
	}
	up, err := os.ReadFile(filepath.Join(dir, "01_updated_key_a.up.sql"))
	if err != nil || !strings.HasSuffix(string(up), "DROP INDEX a;\n") {
		t.Errorf("01 up: %q %v", up, err)
	}
	if down, err := os.ReadFile(filepath.Join(dir, "02_unused_b.down.sql")); err != nil || !strings.HasSuffix(string(down), "CREATE INDEX b ON t (x);\n") {
		t.Errorf("02 down: %q %v", down, err)
	}
}

// Run: the diagnose check changes nothing, each candidate is one more
// check of its up migration, a candidate that fails is skipped with its
// error, and the ranking is by measured log bytes per operation.
func TestRunMeasuresEachCandidateAndSkipsOneThatFails(t *testing.T) {
	mk := func(logBytes, hot, entries float64, dropped ...string) result.Run {
		r := *pgbenchRun()
		r.Indexes = slices.DeleteFunc(slices.Clone(r.Indexes), func(o result.Object) bool { return slices.Contains(dropped, o.Name) })
		r.Database = map[string]result.Metric{"log_bytes_in_scope": result.New(logBytes, result.Exact, "wal")}
		r.Tables = slices.Clone(r.Tables[:1])
		r.Tables[0].Metrics = map[string]result.Metric{"hot_ratio": result.New(hot, result.Derived, "stat"), "rows_updated": result.New(2000, result.Exact, "x")}
		for i := range r.Indexes {
			r.Indexes[i].Metrics["leaf_inserts"] = result.New(entries, result.Exact, "wal")
		}
		return r
	}
	var ran []string
	a := &Advisor{MaxCandidates: 5, Updates: []Update{{Table: "pgbench_accounts", Columns: []string{"abalance"}, Source: "work.sql"}}}
	a.Base.Command = []string{"pgbench"}
	a.Original = func(context.Context) (map[string]Original, error) {
		return map[string]Original{"public.acc_read": {Scans: 3}}, nil
	}
	a.Measure = func(_ context.Context, req check.Request) (*check.Outcome, error) {
		up, err := os.ReadFile(req.Migrations[0])
		if err != nil || !req.ReportOnly {
			t.Fatalf("migration %v, report-only %v", err, req.ReportOnly)
		}
		ran = append(ran, string(up))
		res := &result.Result{Server: result.Server{Name: "PostgreSQL 15"}, Workload: result.Workload{Name: "command"}}
		switch {
		case strings.Contains(string(up), "SELECT 1"):
			res.Runs = []result.Run{mk(8000*2400, 0, 2000), mk(8000*2410, 0, 2000)}
		case strings.Contains(string(up), "acc_bid_abal"):
			return nil, errors.New("statement 1: lock timeout")
		case strings.Contains(string(up), "acc_abalance"):
			res.Runs = []result.Run{mk(8000*2400, 0, 2000), mk(8000*1400, 1, 0, "acc_abalance")}
		default:
			res.Runs = []result.Run{mk(8000*2400, 0, 2000), mk(8000*1900, 0, 2000, "acc_aid_dup")}
		}
		return &check.Outcome{Result: res, PerOp: "row written", Dialect: "postgres"}, nil
	}
	rep, err := a.Run(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 4 || !strings.Contains(ran[0], "SELECT 1") {
		t.Fatalf("checks run: %q", ran)
	}
	if len(rep.Recommendations) != 2 || rep.Recommendations[0].Object != "acc_abalance" || rep.Recommendations[1].Object != "acc_aid_dup" {
		t.Fatalf("recommendations %+v", rep.Recommendations)
	}
	top := rep.Recommendations[0]
	if lb := top.Measured["log_bytes/op"]; *lb.Before != 2400 || *lb.After != 1400 || lb.Exactness != result.Derived {
		t.Errorf("log_bytes/op %+v", lb)
	}
	if h := top.Measured["hot_ratio"]; *h.Before != 0 || *h.After != 1 {
		t.Errorf("hot_ratio %+v", h)
	}
	if !top.BeyondNoise || !strings.HasPrefix(top.Summary, "drop index acc_abalance saves 41.7% WAL per row written, HOT 0% → 100% on pgbench_accounts") {
		t.Errorf("summary %q (noise %v)", top.Summary, *rep.Diagnosis.Noise)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Object != "acc_bid_abal" || !strings.Contains(rep.Skipped[0].Error, "lock timeout") {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	a.Budget = time.Nanosecond
	ran = nil
	rep, err = a.Run(context.Background(), t.TempDir())
	if err != nil || len(ran) != 1 || len(rep.Skipped) != 3 || !strings.Contains(rep.Skipped[0].Error, "time budget") {
		t.Errorf("--time-budget spent: ran %d, skipped %+v, %v", len(ran), rep.Skipped, err)
	}
}

func TestACheckpointInAWindowIsNotBeyondNoise(t *testing.T) {
	run := func(logBytes, checkpoints float64) result.Run {
		return result.Run{Operations: map[string]int64{"refreshes": 100}, MainOperation: "refreshes",
			Database: map[string]result.Metric{"log_bytes": result.New(logBytes, result.Exact, "wal"), "checkpoints": result.New(checkpoints, result.Approx, "stat")}}
	}
	noise := 0.01
	for _, c := range []struct {
		after, checkpoints float64
		beyond             bool
		note               string
	}{{50000, 0, true, ""}, {50000, 1, false, "a checkpoint fell inside"}, {99500, 0, false, "within the noise"}} {
		r := Recommendation{Change: "drop index x"}
		out := &check.Outcome{Result: &result.Result{Runs: []result.Run{run(100000, 0), run(c.after, c.checkpoints)}}, PerOp: "refresh", Dialect: "postgres"}
		fill(&r, &Candidate{Table: "t"}, out, &noise)
		if r.BeyondNoise != c.beyond || c.note != "" && (len(r.Notes) != 1 || !strings.Contains(r.Notes[0], c.note)) {
			t.Errorf("after %v, %v checkpoints: beyond %v, notes %q", c.after, c.checkpoints, r.BeyondNoise, r.Notes)
		}
		if _, ok := r.Measured["hot_ratio"]; ok {
			t.Errorf("hot_ratio of a table the runs do not have: %+v", r.Measured)
		}
	}
}

// With no count of index reads and no UPDATE seen, advise says what the
// server could not tell instead of claiming every index was read.
func TestNoCandidateNamesWhatTheServerCouldNotTell(t *testing.T) {
	blind := Diagnosis{Indexes: []*Index{{Table: "sbtest1", Name: "k_1", OriginalScans: -1}}}
	if got := noCandidate(blind); !strings.Contains(got, "sbtest1.k_1 cannot be called unused") || !strings.Contains(got, "performance_schema") || strings.Contains(got, "every index was read") {
		t.Errorf("blind server: %q", got)
	}
	seen := Diagnosis{Indexes: []*Index{{Table: "t", Name: "t_v", ScansRead: true, Scans: 3, OriginalScans: 0}}}
	if got := noCandidate(seen); !strings.Contains(got, "every index was read") {
		t.Errorf("counted server: %q", got)
	}
}

// On PostgreSQL 16+ an updated-key B-tree on plain columns also gets a
// BRIN replacement (summarizing: the update can stay HOT); not on 15, not
// for a partial index or an expression.
func TestProposeABrinReplacementOnSixteenAndUp(t *testing.T) {
	run := pgbenchRun()
	run.Indexes = append(run.Indexes, index("acc_lower", "pgbench_accounts", "CREATE INDEX acc_lower ON public.pgbench_accounts USING btree (lower(filler))", nil, 0, 2000))
	ups := []Update{{Table: "pgbench_accounts", Columns: []string{"abalance", "filler"}, Source: "work.sql"}}
	for _, major := range []int{15, 16, 18} {
		d := Diagnosis{Dialect: "postgres", Run: run, Indexes: IndexesOf(run, nil), Updates: ups, VersionNum: major * 10000}
		cs, err := Propose(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		var brin []Candidate
		for _, c := range cs {
			if c.Kind == Summarizing {
				brin = append(brin, c)
			}
		}
		if major < 16 {
			if len(brin) != 0 {
				t.Errorf("PostgreSQL %d: BRIN proposed %+v (BRIN blocks HOT before 16)", major, brin)
			}
			continue
		}
		// acc_abalance and acc_read (filler); not acc_bid_abal (partial) nor acc_lower (an expression)
		if len(brin) != 2 || brin[0].Object != "acc_abalance" {
			t.Fatalf("PostgreSQL %d: %+v", major, brin)
		}
		c := brin[0]
		if c.Up != "DROP INDEX \"public\".\"acc_abalance\";\nCREATE INDEX \"acc_abalance\" ON \"public\".\"pgbench_accounts\" USING brin (\"abalance\");\n" ||
			c.Down != "DROP INDEX \"public\".\"acc_abalance\";\nCREATE INDEX acc_abalance ON public.pgbench_accounts USING btree (abalance);\n" {
			t.Errorf("migration: up %q down %q", c.Up, c.Down)
		}
		if !strings.Contains(c.Why[0], "summarizing") || len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "physical order") {
			t.Errorf("why %q notes %q", c.Why, c.Notes)
		}
	}
	if majorOf("16.4 (Debian 16.4-1)") != 16 || majorOf("") != 0 {
		t.Error("majorOf")
	}
}
