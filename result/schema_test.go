package result_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/ciout"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// The schemas in docs/ state the JSON other tools read. These tests hold
// them to what the code writes: every stored result validates, and so does
// a document with every field of the Go types filled in, so a field added
// to a type without a schema entry fails here (the schemas close their
// objects with additionalProperties false).

const (
	resultSchemaID = "https://raw.githubusercontent.com/writeamp/writeamp/main/docs/result.schema.json"
	checkSchemaID  = "https://raw.githubusercontent.com/writeamp/writeamp/main/docs/check-result.schema.json"
)

var schemaFiles = map[string]string{
	resultSchemaID: filepath.Join("..", "docs", "result.schema.json"),
	checkSchemaID:  filepath.Join("..", "docs", "check-result.schema.json"),
}

// compiler loads both schema files under their $id, so check's relative
// references to result.schema.json resolve to the file in the repository.
func compiler(t *testing.T) *jsonschema.Compiler {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for id, path := range schemaFiles {
		doc := readJSON(t, path)
		if got, _ := doc.(map[string]any)["$id"].(string); got != id {
			t.Fatalf("%s: $id is %q, want %q", path, got, id)
		}
		if err := c.AddResource(id, doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return c
}

func compile(t *testing.T, c *jsonschema.Compiler, loc string) *jsonschema.Schema {
	t.Helper()
	s, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("compile %s: %v", loc, err)
	}
	return s
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func instance(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchemasCompileAndRefuse(t *testing.T) {
	c := compiler(t)
	res := compile(t, c, resultSchemaID)
	chk := compile(t, c, checkSchemaID)
	metric := `{"value": 1, "exactness": "exact", "source": "s"}`
	doc := func(run string) string {
		return `{"schema_version": 1, "tool": {"name": "writeamp", "version": "dev"},
			"server": {"dialect": "postgres", "version": "15", "flavor": ""},
			"workload": {"name": "w"}, "runs": [` + run + `]}`
	}
	run := func(m string) string {
		return `{"variant": "v", "operations": {}, "elapsed_seconds": 1, "database": {"log_bytes": ` + m + `}, "tables": [], "indexes": []}`
	}
	if err := res.Validate(instance(t, []byte(doc(run(metric))))); err != nil {
		t.Fatalf("a minimal result does not validate: %v", err)
	}
	for name, bad := range map[string]string{
		"another schema_version":     strings.Replace(doc(run(metric)), `"schema_version": 1`, `"schema_version": 2`, 1),
		"an unknown exactness":       doc(run(`{"value": 1, "exactness": "sampled", "source": "s"}`)),
		"a metric without value":     doc(run(`{"exactness": "exact", "source": "s"}`)),
		"a field it does not know":   doc(strings.Replace(run(metric), `"variant"`, `"colour": "red", "variant"`, 1)),
		"a negative operation count": doc(strings.Replace(run(metric), `"operations": {}`, `"operations": {"refreshes": -1}`, 1)),
	} {
		if res.Validate(instance(t, []byte(bad))) == nil {
			t.Errorf("the result schema accepts %s", name)
		}
	}
	good := `{"check": "pass", "exit_code": 0, "budgets": [], "result": ` + doc(run(metric)) + `}`
	if err := chk.Validate(instance(t, []byte(good))); err != nil {
		t.Fatalf("a minimal check document does not validate: %v", err)
	}
	// The embedded result is held to the result schema.
	if chk.Validate(instance(t, []byte(strings.Replace(good, `"exactness": "exact"`, `"exactness": "sampled"`, 1)))) == nil {
		t.Error("the check schema accepts a result with an unknown exactness")
	}
}

// fixtures are the stored results of reports/testdata: every *.json and
// *.json.golden holding a result document, and the claims goldens (a list
// of claims).
func fixtures(t *testing.T) (results, claims []string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "reports", "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden, _ := filepath.Glob(filepath.Join("..", "reports", "testdata", "*.json.golden"))
	for _, p := range append(paths, golden...) {
		switch readJSON(t, p).(type) {
		case map[string]any:
			results = append(results, p)
		case []any:
			claims = append(claims, p)
		default:
			t.Fatalf("%s: neither a result nor a list of claims", p)
		}
	}
	return results, claims
}

func TestFixturesMatchSchema(t *testing.T) {
	c := compiler(t)
	res := compile(t, c, resultSchemaID)
	claim := compile(t, c, resultSchemaID+"#/$defs/claim")
	results, claims := fixtures(t)
	if len(results) < 7 || len(claims) < 2 {
		t.Fatalf("found %d result fixtures and %d claims goldens in reports/testdata, want at least 7 and 2", len(results), len(claims))
	}
	for _, p := range results {
		if err := res.Validate(readJSON(t, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		// What writeamp writes of it today (findings afresh, samples in
		// their current form) validates too.
		r, err := result.Read(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var b bytes.Buffer
		if err := reports.JSON(&b, r); err != nil {
			t.Fatal(err)
		}
		if err := res.Validate(instance(t, b.Bytes())); err != nil {
			t.Errorf("%s written again: %v", p, err)
		}
	}
	for _, p := range claims {
		for i, x := range readJSON(t, p).([]any) {
			if err := claim.Validate(x); err != nil {
				t.Errorf("%s: claims[%d]: %v", p, i, err)
			}
		}
	}
}

// TestEveryFieldInSchema fills every field of the documents' Go types (a
// field added later included) and validates what they marshal to; and
// every property the schemas name must occur in that document or a
// fixture, so a misspelt or removed name is caught too.
func TestEveryFieldInSchema(t *testing.T) {
	c := compiler(t)
	var res result.Result
	fill(reflect.ValueOf(&res).Elem(), "", 0)
	resJSON, err := json.Marshal(&res)
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(t, c, resultSchemaID).Validate(instance(t, resJSON)); err != nil {
		t.Errorf("a result with every field set does not validate: %v\n%s", err, resJSON)
	}

	var doc ciout.Document
	fill(reflect.ValueOf(&doc).Elem(), "", 0)
	docJSON, err := json.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(t, c, checkSchemaID).Validate(instance(t, docJSON)); err != nil {
		t.Errorf("a check document with every field set does not validate: %v\n%s", err, docJSON)
	}

	seen := map[string]bool{}
	keys(instance(t, resJSON), seen)
	keys(instance(t, docJSON), seen)
	results, _ := fixtures(t)
	for _, p := range results {
		keys(readJSON(t, p), seen)
	}
	for _, path := range schemaFiles {
		var named []string
		properties(readJSON(t, path), &named)
		for _, n := range named {
			if !seen[n] {
				t.Errorf("%s names property %q, which no document written from the Go types or stored in reports/testdata has", path, n)
			}
		}
	}
}

// enums are the values fill gives string fields whose schema has a fixed
// set, by the field's type or by "Type.Field".
var enums = map[string]string{
	"Exactness":             string(result.Derived),
	"Unit":                  string(result.Bytes),
	"Status":                string(budget.Fail),
	"Write.Kind":            "update",
	"Claim.Verdict":         result.NotHeld,
	"OperationObject.Level": "index",
	"Restoration.Method":    restore.MethodUndo,
	"Document.Check":        "fail",
	"Document.Exit":         "1",
	"Result.SchemaVersion":  "1",
	"Result.CreatedAt":      time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339),
	"Window.Start":          "2026-01-02T03:04:05Z",
	"Window.End":            "2026-01-02T03:04:06Z",
}

// fill sets every exported field of v to a value that is not its zero
// (one element in each slice and map), so every omitempty field is written.
func fill(v reflect.Value, field string, depth int) {
	if depth > 40 { // a type that holds itself
		panic("fill: too deep at " + field)
	}
	want, fixed := enums[field]
	if !fixed {
		want, fixed = enums[v.Type().Name()]
	}
	switch v.Kind() {
	case reflect.String:
		if !fixed {
			want = "x"
		}
		v.SetString(want)
	case reflect.Int, reflect.Int64:
		n := int64(2)
		if fixed {
			n = int64(want[0] - '0')
		}
		v.SetInt(n)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), field, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), field, depth+1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), field, depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, field, depth+1)
		v.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), e)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				fill(v.Field(i), v.Type().Name()+"."+f.Name, depth+1)
			}
		}
	default:
		panic("fill: no value for " + v.Type().String() + " at " + field)
	}
}

func keys(v any, seen map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			seen[k] = true
			keys(e, seen)
		}
	case []any:
		for _, e := range x {
			keys(e, seen)
		}
	}
}

// properties collects the names under every "properties" of a schema.
func properties(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if ps, ok := x["properties"].(map[string]any); ok {
			for k := range ps {
				if !slices.Contains(*out, k) {
					*out = append(*out, k)
				}
			}
		}
		for _, e := range x {
			properties(e, out)
		}
	case []any:
		for _, e := range x {
			properties(e, out)
		}
	}
	sort.Strings(*out)
}
