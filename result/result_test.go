package result

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRefusesWhatIsNotAResult(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"garbage.json": "not json at all",
		"future.json":  `{"schema_version": 2, "runs": []}`,
		"none.json":    `{"runs": []}`,
	}
	for name, body := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: want an error naming the file, got %v", name, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file must be an error")
	}
}

func TestNonFiniteNumbersBecomeUnavailable(t *testing.T) {
	m := New(math.NaN(), Derived, "x / y")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"value":null`) || !strings.Contains(string(b), `"unavailable"`) {
		t.Errorf("NaN must not reach the JSON as a number: %s", b)
	}
}

func TestRatio(t *testing.T) {
	if r := Ratio(New(99, Exact, "a"), New(100, Exact, "b"), "a/b"); !r.OK() || r.V() != 0.99 || r.Exactness != Derived {
		t.Errorf("%+v", r)
	}
	if r := Ratio(New(1, Exact, "a"), New(0, Exact, "b"), "a/b"); r.OK() {
		t.Error("division by zero must be unavailable")
	}
	if r := Ratio(New(1, Approx, "a"), New(2, Exact, "b"), "a/b"); r.Exactness != Approx {
		t.Errorf("a ratio is no more exact than its inputs: %s", r.Exactness)
	}
}

// FuzzRead: any bytes in a result file give a result or an error, never a
// panic, and what Read accepts survives a write and a second read.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"runs":[{"variant":"a","operations":{"x":1},"database":{"log_bytes":{"value":5,"exactness":"exact","source":"s"}}}]}`))
	f.Add([]byte(`{"schema_version":1,"runs":[{"tables":[{"name":"t","metrics":{"m":{"value":null,"exactness":"unavailable"}}}]}]}`))
	f.Add([]byte(`{"schema_version":1,"runs":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"schema_version":1e400}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Skip()
		}
		r, err := Read(p)
		if err != nil {
			return
		}
		for i := range r.Runs {
			r.Runs[i].Sort()
			r.Runs[i].Main()
			r.Runs[i].Table("t")
		}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(r); err != nil {
			t.Fatalf("accepted but cannot write back: %v", err)
		}
		os.WriteFile(p, buf.Bytes(), 0o644)
		if _, err := Read(p); err != nil {
			t.Fatalf("written back but not readable: %v", err)
		}
	})
}

// A hand-edited negative counter gave `plan` output like -64.4 GB/day: Read
// refuses it and names the file and the field.
func TestReadRefusesNegativeCounters(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "reports", "testdata", "refresh_token_pg15.json"))
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string]func(r map[string]any){
		`database.log_bytes`: func(r map[string]any) {
			db := run0(r)["database"].(map[string]any)
			db["log_bytes"].(map[string]any)["value"] = -5e10
		},
		`operations.refreshes`: func(r map[string]any) { run0(r)["operations"].(map[string]any)["refreshes"] = -15000 },
		`indexes[idx_user_session_expiration_last_refresh].leaf_inserts`: func(r map[string]any) {
			for _, ix := range run0(r)["indexes"].([]any) {
				ix := ix.(map[string]any)
				if ix["name"] == "idx_user_session_expiration_last_refresh" {
					ix["metrics"].(map[string]any)["leaf_inserts"].(map[string]any)["value"] = -1
				}
			}
		},
		`per_operation.refresh.log_bytes`: func(r map[string]any) {
			run0(r)["per_operation"].(map[string]any)["refresh"].(map[string]any)["log_bytes"] = -1.5
		},
	}
	dir := t.TempDir()
	for field, edit := range edits {
		var r map[string]any
		json.Unmarshal(data, &r)
		edit(r)
		b, _ := json.Marshal(r)
		p := filepath.Join(dir, "edited.json")
		os.WriteFile(p, b, 0o644)
		_, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s negative: want an error naming %s and the field, got %v", field, p, err)
		}
	}
	// A gauge may fall: a table shrank in the window.
	var r map[string]any
	json.Unmarshal(data, &r)
	for _, tb := range run0(r)["tables"].([]any) {
		tb.(map[string]any)["metrics"].(map[string]any)["size_bytes"] = map[string]any{"value": -8192, "exactness": "exact", "source": "pg_relation_size"}
	}
	b, _ := json.Marshal(r)
	p := filepath.Join(dir, "shrunk.json")
	os.WriteFile(p, b, 0o644)
	if _, err := Read(p); err != nil {
		t.Errorf("a smaller relation is not an edit: %v", err)
	}
}

func run0(r map[string]any) map[string]any { return r["runs"].([]any)[0].(map[string]any) }

// Validate asks the catalogue which metrics may fall: the sizes may, every
// count (the waits family and names it does not know included) may not.
func TestValidateFollowsTheCatalogue(t *testing.T) {
	run := func(db, ix map[string]Metric) *Result {
		return &Result{SchemaVersion: 1, Runs: []Run{{Variant: "v", Database: db,
			Indexes: []Object{{Name: "i", Metrics: ix}}}}}
	}
	if err := run(nil, map[string]Metric{"leaf_pages": New(-3, Approx, "s"), "size_pages": New(-1, Approx, "s")}).Validate(); err != nil {
		t.Errorf("a gauge fell: %v", err)
	}
	for _, name := range []string{"waits.writelog_ms", "log_payload_bytes", "from_a_newer_writeamp"} {
		err := run(map[string]Metric{name: New(-1, Exact, "s")}, nil).Validate()
		if err == nil || !strings.Contains(err.Error(), "database."+name) {
			t.Errorf("negative %s: %v", name, err)
		}
	}
	if err := run(nil, map[string]Metric{"leaf_inserts": New(-1, Exact, "s")}).Validate(); err == nil || !strings.Contains(err.Error(), "indexes[i].leaf_inserts") {
		t.Errorf("negative leaf_inserts: %v", err)
	}
}
