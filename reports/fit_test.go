package reports

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/writeamp/writeamp/result"
)

var figure = regexp.MustCompile(`[-+]?\d[\d,.]*%?`)

// Every fixture's table report fits 80, 100 and 120 columns (counted in
// characters, as awk counts them: "—", "≥" and "→" are one each), and every
// figure the unbounded report shows is still there.
func TestTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	if len(files) < 4 {
		t.Fatalf("fixtures: %v", files)
	}
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil || len(res.Runs) == 0 {
			continue // a golden JSON output, not a result
		}
		var full bytes.Buffer
		if err := Render(&full, "table", res, Options{}); err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, fig := range figure.FindAllString(full.String(), -1) {
			want[strings.TrimRight(fig, ".,")] = true
		}
		for _, w := range []int{80, 100, 120} {
			var b bytes.Buffer
			if err := Render(&b, "table", res, Options{Width: w}); err != nil {
				t.Fatal(err)
			}
			for i, l := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > w {
					t.Errorf("%s at %d: line %d is %d wide: %q", f, w, i+1, n, l)
				}
			}
			for fig := range want {
				if !strings.Contains(b.String(), fig) {
					t.Errorf("%s at %d lost the figure %s", f, w, fig)
				}
			}
		}
	}
}

// A figure the workload gives per refresh already is not divided by the
// refreshes again: the row had 0.90 beside a per-refresh 0.000.
func TestPerRefreshFigureIsNotDividedAgain(t *testing.T) {
	t.Parallel()
	res := fixture(t)
	for i := range res.Runs {
		res.Runs[i].Database[result.RefreshExpirationIndexEntries.Name] = result.New(0.9, result.Derived, "leaf inserts per refresh")
	}
	var b bytes.Buffer
	if err := Render(&b, "table", res, Options{}); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "expiration-index entries per refresh") {
			row = l
		}
	}
	if row == "" || !strings.Contains(row, "0.90") || strings.Contains(row, "0.000") {
		t.Errorf("row %q", row)
	}
}

// A PostgreSQL command that wrote no row to a measured table is not said to
// run on a server that counts no rows per table; MariaDB's tables without
// row counters are.
func TestNoRowsWhyNamesTheServerOnlyWhereItCountsNone(t *testing.T) {
	t.Parallel()
	zero := result.New(0, result.Exact, "pg_stat_user_tables.n_tup_ins")
	pg := &result.Run{Tables: []result.Object{{Name: "public.t", Metrics: map[string]result.Metric{
		result.RowsInserted.Name: zero, result.RowsUpdated.Name: zero, result.RowsDeleted.Name: zero}}}}
	if got := NoTableRowsWhy([]Column{{Run: pg}}); got != "the workload wrote no row to a measured table" {
		t.Errorf("PostgreSQL: %q", got)
	}
	my := &result.Run{Tables: []result.Object{{Name: "app.t", Metrics: map[string]result.Metric{}}}}
	if got := NoTableRowsWhy([]Column{{Run: my}}); !strings.Contains(got, "counts no rows per table") {
		t.Errorf("MariaDB: %q", got)
	}
}

// The html's <title> names the workload and its columns, a wrapped command
// by its words.
func TestHTMLTitleNamesTheWorkload(t *testing.T) {
	t.Parallel()
	res := fixture(t)
	var b bytes.Buffer
	if err := Render(&b, "html", res, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "<title>refresh-token: baseline vs coarse on " + res.Server.Name + "</title>"; !strings.Contains(b.String(), want) {
		t.Errorf("want %s", want)
	}
	res.Workload = result.Workload{Name: "command", Params: map[string]any{"command": "psql -f migrate.sql app"}}
	res.Runs = res.Runs[:1]
	res.Runs[0].Label = "v42"
	b.Reset()
	if err := Render(&b, "html", res, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "<title>psql -f migrate.sql app: v42 on "; !strings.Contains(b.String(), want) {
		t.Errorf("want %s", want)
	}
}
