package measure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// epilogueRows gives an epilogue's database-level row figures (the
// expiration job's rows deleted) on every dialect, each held to the rows the
// driver saw the epilogue's statements change. A database-level figure is
// what a reader takes as the job's total, so it must not be absent where the
// server keeps no such counter: PostgreSQL has none for a schema (pg_stat_
// database counts the whole database, every session), only the tables' own,
// so there the figure is their sum. Where the server does keep one
// (InnoDB's Innodb_rows_deleted) it is server-wide, so a difference from the
// driver's count is other sessions' rows and the figure becomes approx.
// Names are the epilogue's (metrics: window metric -> run figure); the
// returned figures replace any database-level ones already put.
func epilogueRows(d *collectors.Delta, writes []collectors.Write, metrics map[string]string, prefix string) map[string]result.Metric {
	out := map[string]result.Metric{}
	drivers := map[string]float64{} // window metric -> rows the driver counted
	counted := map[string]bool{}
	for _, w := range writes {
		if km, ok := rowMetric[w.Kind]; ok {
			drivers[km] += float64(w.Rows)
			counted[km] = true
		}
	}
	for _, km := range result.RowMetrics {
		name, ok := metrics[km]
		if !ok {
			continue
		}
		m, ok := d.Values[collectors.Key{Level: collectors.DB, Metric: km}]
		if ok && m.OK() {
			m.Source = prefix + "window: " + m.Source
		} else {
			m = sumTables(d, km, prefix)
		}
		if counted[km] && m.OK() && m.V() != drivers[km] {
			why := "the server's statistics had not all arrived when the window closed"
			if m.V() > drivers[km] {
				why = "the server also counted rows of other sessions (a server-wide counter) or of rolled-back attempts"
			}
			m.Exactness = result.Weaker(result.Approx, m.Exactness)
			m.Note = joinNote(m.Note, fmt.Sprintf("the epilogue's statements changed %.0f rows (the driver's count), the server counted %.0f: %s", drivers[km], m.V(), why))
		}
		out[name] = m
	}
	return out
}

// sumTables is a row counter summed over the window's tables: derived (a
// sum), no better than its weakest part, unavailable when no table has it.
func sumTables(d *collectors.Delta, km, prefix string) result.Metric {
	var sum float64
	var srcs []string
	e, n := result.Derived, 0
	for k, m := range d.Values {
		if k.Level != collectors.Table || k.Metric != km {
			continue
		}
		if !m.OK() {
			return result.NA(prefix+"window: sum over the tables in scope", fmt.Sprintf("%s of %s is unavailable (%s), so their sum is not known", km, k.Object, m.Note))
		}
		sum += m.V()
		e = result.Weaker(e, m.Exactness)
		if !slices.Contains(srcs, m.Source) {
			srcs = append(srcs, m.Source)
		}
		n++
	}
	if n == 0 {
		return result.NA(prefix+"window", "the server gave no database-wide "+km+" and no table's")
	}
	slices.Sort(srcs)
	m := result.New(sum, e, fmt.Sprintf("%swindow: sum over the %d tables in scope of %s", prefix, n, strings.Join(srcs, ", ")))
	m.Note = "no database-wide counter for the workload's schema, so the tables' own are summed"
	return m
}
