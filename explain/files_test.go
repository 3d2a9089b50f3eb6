package explain

import (
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

// TestIndexOfEarlierFileCountsForLaterFiles: `explain mig.sql work.sql`
// reads the files as one sequence. The catalog has st.t with its primary
// key only; mig.sql creates an index on v, so work.sql's UPDATE of v is not
// HOT and adds an entry per row to both indexes, and its INSERT to both
// too. Explained alone, work.sql's UPDATE is HOT-possible: the carry-over,
// not the catalog, makes the difference. The catalog is read once per table.
func TestIndexOfEarlierFileCountsForLaterFiles(t *testing.T) {
	t.Parallel()
	reads := map[string]int{}
	read := func(schema, name string) (Table, error) {
		reads[schema+"."+name]++
		return Table{Schema: schema, Name: name, Found: true, Columns: map[string]Column{"id": {Type: "int4", NotNull: true}, "v": {Type: "int4", NotNull: true}}, Indexes: []Index{{Name: "t_pkey", Method: "btree", Primary: true, Keys: []string{"id"}}}}, nil
	}
	s := dialects.Server{Dialect: "postgres", Version: "15.8", VersionNum: 150008}
	mig := "CREATE INDEX t_v ON st.t (v);"
	work := "UPDATE st.t SET v = v + 1 WHERE id <= 100;\nINSERT INTO st.t VALUES (1000, 1);"
	reps, err := predictTexts(s, []string{mig, work}, read)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || len(reps[0].Predictions) != 0 || len(reps[1].Predictions) != 2 {
		t.Fatalf("reports %+v", reps)
	}
	up, ins := reps[1].Predictions[0], reps[1].Predictions[1]
	if up.HOT != "no" || up.EntriesPerRow != 2 || !hits(up, "t_v") {
		t.Errorf("update after mig.sql: HOT %q, %v entries per row, indexes %+v; want not HOT, 2 (t_pkey and t_v)", up.HOT, up.EntriesPerRow, up.Indexes)
	}
	if ins.EntriesPerRow != 2 || !hits(ins, "t_v") {
		t.Errorf("insert after mig.sql: %v entries per row, indexes %+v; want 2", ins.EntriesPerRow, ins.Indexes)
	}
	if reads["st.t"] != 1 {
		t.Errorf("st.t read %d times from the catalog, want once", reads["st.t"])
	}
	alone, err := predictTexts(s, []string{work}, read)
	if err != nil {
		t.Fatal(err)
	}
	if p := alone[0].Predictions[0]; p.HOT != "possible" || p.EntriesPerRow != 0 {
		t.Errorf("work.sql alone: HOT %q, %v entries per row; want HOT possible, 0", p.HOT, p.EntriesPerRow)
	}
	// Order matters: the index created after the UPDATE does not count for it.
	rev, err := predictTexts(s, []string{work, mig}, read)
	if err != nil {
		t.Fatal(err)
	}
	if p := rev[0].Predictions[0]; p.HOT != "possible" {
		t.Errorf("work.sql before mig.sql: HOT %q, want possible", p.HOT)
	}
}

func hits(p Prediction, index string) bool {
	for _, h := range p.Indexes {
		if h.Index == index && h.Entries == 1 {
			return true
		}
	}
	return false
}
