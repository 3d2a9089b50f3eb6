package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads"
)

// A budget's [OBJECT] is checked before the workload runs: a misspelled
// name would otherwise cost the whole measurement and then be reported as
// "could not be evaluated". An object the migration (or --schema) names may
// not exist yet: it is judged on what the after run has.

// identRE is an SQL identifier as the statements spell it unquoted or
// inside quotes.
var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*`)

// namedIn are the identifiers files hold, lower case.
func namedIn(files ...[]sqlfile.File) map[string]bool {
	out := map[string]bool{}
	for _, fs := range files {
		for _, f := range fs {
			// Not yet split (that needs the server's dialect): the whole
			// text, comments too, which can only let a name through.
			for _, w := range identRE.FindAllString(f.Text, -1) {
				out[strings.ToLower(w)] = true
			}
			for _, st := range f.Statements {
				for _, w := range identRE.FindAllString(st.Text, -1) {
					out[strings.ToLower(w)] = true
				}
			}
		}
	}
	return out
}

// objectsOf are the budgets that name an object.
func objectsOf(bs []budget.Budget) []budget.Budget {
	var out []budget.Budget
	for _, b := range bs {
		if b.Object != "" && !strings.HasPrefix(b.Metric, "migration.") {
			out = append(out, b)
		}
	}
	return out
}

func bareName(s string) string {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[i+1:]
	}
	return s
}

// judgeObjects refuses a budget whose object is neither among known (the
// objects there before the migration, as names or schema.names) nor named
// by the migration or --schema; where says what known is. A name only the
// migration holds gets a note on how it is judged.
func judgeObjects(bs []budget.Budget, known []string, where string, created map[string]bool, note func(string, ...any)) error {
	have := map[string]bool{}
	for _, k := range known {
		have[strings.ToLower(k)] = true
		have[strings.ToLower(bareName(k))] = true
	}
	for _, b := range objectsOf(bs) {
		name := strings.ToLower(b.Object)
		switch {
		case have[name] || have[bareName(name)]:
		case created[bareName(name)]:
			note("budget %s: %s is not in the database before the migration (the migration or --schema names it): an absolute threshold judges its value after the migration; a relative change (or a ratio's change) has no before and is reported as new, not failing", b.Text, b.Object)
		default:
			return fmt.Errorf("--budget %q: no table or index named %q %s, and the migration does not name it%s", b.Text, b.Object, where, didYouMean(bareName(b.Object), known))
		}
	}
	return nil
}

// didYouMean names the known names closest to s.
func didYouMean(s string, known []string) string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, k := range known {
		k = bareName(k)
		lk := strings.ToLower(k)
		if seen[lk] {
			continue
		}
		seen[lk] = true
		d := budget.Distance(strings.ToLower(s), lk)
		if d <= max(2, len(s)/3) || strings.Contains(lk, strings.ToLower(s)) || strings.Contains(strings.ToLower(s), lk) && len(lk) > 3 {
			cs = append(cs, cand{k, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].name < cs[j].name })
	if len(cs) > 3 {
		cs = cs[:3]
	}
	if len(cs) == 0 {
		var names []string
		for n := range seen {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return ""
		}
		more := ""
		if len(names) > 8 {
			names, more = names[:8], ", …"
		}
		return " (there are: " + strings.Join(names, ", ") + more + ")"
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

// builtinObjects are the names the built-in workload's objects can have:
// its tables, and what its SQL (queries/<dialect>/<workload>.sql, every
// dialect) names. ok is false for a workload without such SQL: then its
// index names are not known before it runs.
func builtinObjects(w workloads.Workload) (names []string, ok bool) {
	names = append(names, w.Scope().Tables...)
	file := strings.ReplaceAll(w.Meta().Name, "-", "_") + ".sql"
	seen := map[string]bool{}
	for _, bl := range queries.All() {
		if bl.File != file && !strings.HasSuffix(bl.File, "/"+file) {
			continue
		}
		ok = true
		for _, m := range ddlName.FindAllStringSubmatch(bl.SQL, -1) {
			n := strings.ToLower(bareName(m[1]))
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names, ok
}

// ddlName is the name a CREATE TABLE/INDEX or a named constraint (a
// primary key is an index too) gives.
var ddlName = regexp.MustCompile(`(?i)(?:create\s+(?:unique\s+)?(?:table|index)\s+(?:if\s+not\s+exists\s+)?|constraint\s+)([A-Za-z0-9_{}.$"]+)`)

// checkBuiltinObjects is judgeObjects for the built-in workload, whose
// objects are known before anything runs.
func (r Request) checkBuiltinObjects(bs []budget.Budget, schema, migration []sqlfile.File) error {
	if len(objectsOf(bs)) == 0 {
		return nil
	}
	known, ok := builtinObjects(r.Workload)
	if !ok {
		return nil
	}
	slices.Sort(known)
	return judgeObjects(bs, known, "in the built-in "+r.Workload.Meta().Name+" workload (it measures only its own schema's objects; your tables need -- COMMAND)", namedIn(schema, migration), func(string, ...any) {})
}

// CheckBudgetObjects refuses, before the workload runs, a budget naming an
// object that neither the measured database holds nor the migration or
// --schema names, suggesting the closest names (PostgreSQL, MySQL/MariaDB;
// the built-in workload's objects were checked by Request.Gate). It only
// reads the catalog.
func (g *Gate) CheckBudgetObjects(ctx context.Context) error {
	if _, builtin := g.Mode.(*Builtin); builtin || len(objectsOf(g.Budgets)) == 0 || g.Window == nil {
		return nil
	}
	q, err := queries.Get(g.server().Dialect, "budget_objects", g.server().VersionNum)
	if err != nil {
		return nil // a dialect without the catalog read: judged after the measurement
	}
	rows, err := g.Window.DB.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("reading the tables and indexes the budgets name: %w", err)
	}
	defer rows.Close()
	var known []string
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			return err
		}
		known = append(known, name, schema+"."+name)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the tables and indexes the budgets name: %w", err)
	}
	return judgeObjects(g.Budgets, known, "in the database", namedIn(g.Schema, g.Migration), g.logf)
}
