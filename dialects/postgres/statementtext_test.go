package postgres

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

// TestOwnStatementsAreRecognised: the texts pg_stat_statements recorded for
// writeamp's own reads (constants, booleans, NULL and negative numbers
// replaced, 17's savepoint names, 18's squashed IN lists) are recognised
// as writeamp's, through the dialect-neutral call measure makes, and a
// workload's statements are not.
func TestOwnStatementsAreRecognised(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/own_statements.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct{ Texts []string }
	if err := json.Unmarshal(b, &fx); err != nil || len(fx.Texts) < 5 {
		t.Fatalf("fixture: %v (%d texts)", err, len(fx.Texts))
	}
	for _, text := range fx.Texts {
		if !dialects.OwnStatement(Name, text) {
			t.Errorf("not recognised as writeamp's own: %.120q", text)
		}
	}
	for _, text := range []string{
		"UPDATE writeamp_rt_3638caa2_baseline.offline_user_session SET last_session_refresh = $1, version = $2 WHERE offline_flag = $3 AND user_session_id = $4 AND version = $5",
		"insert into st.a select g, $1 from generate_series($2, $3) g",
		"SELECT c.oid FROM pg_class c WHERE c.relkind IN ($1, $2) AND c.relname IS NULL",
		"SET LOCAL work_mem = $1",
	} {
		if (Dialect{}).OwnStatement(text) {
			t.Errorf("a workload's statement taken for writeamp's own: %q", text)
		}
	}
}

func TestNormaliseStatement(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"SELECT a FROM t WHERE b = 'x''y' AND c = -12 AND d IS NULL -- note": "select a from t where b = ? and c = ? and d is null",
		"select NULL::bigint, true, $3":                                      "select ?::bigint, ?, ?",
		"SELECT * FROM t WHERE k IN ($1, $2, $3)":                            "select * from t where k in (?)",
		"SET LOCAL lock_timeout = '5s'":                                      "set local lock_timeout = ?",
		"SET LOCAL lock_timeout = snapshot":                                  "set local lock_timeout = ?",
	} {
		if got := NormaliseStatement(in); got != want {
			t.Errorf("NormaliseStatement(%q) = %q, want %q", in, got, want)
		}
	}
}
