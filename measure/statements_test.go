package measure

import (
	"encoding/json"
	"os"
	"testing"
)

// TestOwnQueriesAreRecognised: the texts pg_stat_statements recorded for
// writeamp's own reads (constants, booleans, NULL and negative numbers
// replaced, 17's savepoint names, 18's squashed IN lists) are recognised
// as writeamp's, and a workload's statements are not.
func TestOwnQueriesAreRecognised(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/own_statements.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct{ Texts []string }
	if err := json.Unmarshal(b, &fx); err != nil || len(fx.Texts) < 5 {
		t.Fatalf("fixture: %v (%d texts)", err, len(fx.Texts))
	}
	own := ownQueries()
	for _, text := range fx.Texts {
		if !own[normalise(text)] {
			t.Errorf("not recognised as writeamp's own: %.120q", text)
		}
	}
	for _, text := range []string{
		"UPDATE writeamp_rt_3638caa2_baseline.offline_user_session SET last_session_refresh = $1, version = $2 WHERE offline_flag = $3 AND user_session_id = $4 AND version = $5",
		"insert into st.a select g, $1 from generate_series($2, $3) g",
		"SELECT c.oid FROM pg_class c WHERE c.relkind IN ($1, $2) AND c.relname IS NULL",
		"SET LOCAL work_mem = $1",
	} {
		if own[normalise(text)] {
			t.Errorf("a workload's statement taken for writeamp's own: %q", text)
		}
	}
}
