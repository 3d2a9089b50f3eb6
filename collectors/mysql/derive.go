package mysql

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/result"
)

// DeriveBinlogDDL keeps MariaDB's binlog_bytes exact only for a window
// without DDL: Binlog_bytes_written ran 42 B per DDL statement above the
// growth of the binary log files (SHOW BINARY LOGS) on 10.11, while DML
// matched it to the byte (TestBinlogBytesEqualTheFilesGrowth). The 42 B are
// the statement's Gtid event, counted twice for a DDL statement (the test
// holds the excess to the Gtid events' sizes in SHOW BINLOG EVENTS). It is
// not subtracted: a Gtid event's size depends on its flags, and reading the
// events needs a privilege the collectors do not ask for.
func DeriveBinlogDDL(d *collectors.Delta) {
	k := collectors.NewKey(collectors.DB, "", result.BinlogBytes)
	m, ddl := d.Get(k), d.Get(collectors.NewKey(collectors.DB, "", result.DdlStatements))
	if !my.IsMariaDB(d.Server) || !m.OK() || m.Exactness != result.Exact || !ddl.OK() || ddl.V() == 0 {
		return
	}
	m.Exactness = result.Approx
	m.Note = fmt.Sprintf("%.0f DDL statement(s) ran in the window: MariaDB's Binlog_bytes_written counts each DDL statement's Gtid event twice (42 B with checksums), so it runs that much above the binary log files' growth (measured on 10.11; DML matches to the byte)", ddl.V())
	d.Values[k] = m
}

// DeriveUnavailable says why the figures a server cannot give are missing,
// instead of leaving them out, and adds the redo payload estimate where the
// LSN counts block framing.
func DeriveUnavailable(d *collectors.Delta) {
	s := d.Server
	if !s.Has(my.CapBinlogStatus) && !s.Has(my.CapPerfSchemaBinlog) {
		src := "Binlog_bytes_written"
		if !my.IsMariaDB(s) {
			src = "performance_schema.file_summary_by_event_name wait/io/file/sql/binlog"
		}
		why := s.Why(my.CapBinlog)
		if s.Has(my.CapBinlog) {
			why = s.Why(my.CapPerfSchemaBinlog)
		}
		d.Put(collectors.NewKey(collectors.DB, "", result.BinlogBytes), result.NA(src, why))
	}
	for _, m := range []struct {
		metric             *result.Info
		source, capability string
	}{
		{result.PageSplits, "INFORMATION_SCHEMA.INNODB_METRICS index_page_splits", my.CapIndexMonitor},
		{result.TransactionsCommitted, "INFORMATION_SCHEMA.INNODB_METRICS trx_rw_commits, trx_ro_commits, trx_nl_ro_commits, trx_rollbacks", my.CapTrxMonitor},
	} {
		if d.Has(collectors.NewKey(collectors.DB, "", m.metric)) {
			continue
		}
		why := s.Why(m.capability)
		if !s.Has(my.CapInnodbMetrics) {
			why = s.Why(my.CapInnodbMetrics)
		}
		d.Put(collectors.NewKey(collectors.DB, "", m.metric), result.NA(m.source, why))
	}
	lb := d.Get(collectors.NewKey(collectors.DB, "", result.LogBytes))
	if lb.OK() && my.BlockFramedLSN(s) && strings.Contains(strings.ToLower(lb.Source), "lsn") {
		m := result.New(lb.V()*496/512, result.Weaker(result.Derived, lb.Exactness), "derived: redo LSN difference × 496/512 (512-byte blocks carry 16 bytes of header and trailer)")
		d.Put(collectors.NewKey(collectors.DB, "", result.LogPayloadBytes), m)
	}
}

// DeriveLeafPages keeps the leaf-page cross-check only where InnoDB
// recalculated the index's persistent statistics inside the window: an
// unchanged last_update means both readings are the same old estimate, and a
// difference of zero would read as "no growth". last_update has whole
// seconds, so a changed value also counts as recalculated.
func DeriveLeafPages(d *collectors.Delta) {
	if d.Before == nil || d.After == nil {
		return
	}
	before := map[collectors.Key]collectors.Counter{}
	for _, c := range d.Before.Counters {
		before[c.Key] = c
	}
	for _, c := range d.After.Counters {
		if c.Level != collectors.Index || (c.Metric != result.LeafPages.Name && c.Metric != result.SizePages.Name) {
			continue
		}
		if b, ok := before[c.Key]; ok && b.Note == c.Note && b.Value == c.Value {
			d.Values[c.Key] = result.NA(c.Source, "InnoDB did not recalculate this index's persistent statistics inside the window (last "+
				lastUpdate(c.Note)+"): no measured growth to show; ANALYZE TABLE refreshes them")
		}
	}
}

func lastUpdate(note string) string {
	if _, rest, ok := strings.Cut(note, "("); ok {
		if v, _, ok := strings.Cut(rest, ")"); ok {
			return v
		}
	}
	return "unknown"
}

// Rule texts, shown as the Source of each derived number.
const (
	ruleInsert       = "INSERT adds an entry to every index"
	ruleDelete       = "DELETE delete-marks the entry in every index; purge removes it later"
	ruleUpdateKey    = "UPDATE changes a key column of this index -> delete-mark + insert"
	ruleUpdatePK     = "UPDATE changes the primary key, which every index entry holds -> delete-mark + insert"
	ruleUpdateInPl   = "UPDATE of non-key columns updates the clustered record in place"
	ruleUpdateNoKey  = "UPDATE changes no key column of this index -> untouched"
	derivedRowsSrc   = "derived: rows affected reported to the workload per statement"
	noStatementsWhy  = "InnoDB keeps no per-index write counter, and no statement counts were given to derive one from (a wrapped command)"
	prefixCaveatNote = "a prefix-indexed column counts as changed; InnoDB leaves the entry alone when only bytes past the prefix change"
)

// ruleRank keeps the Source text stable whatever order the writes came in.
var ruleRank = map[string]int{ruleInsert: 0, ruleUpdatePK: 1, ruleUpdateKey: 2, ruleUpdateInPl: 3, ruleUpdateNoKey: 4, ruleDelete: 5}

type indexTally struct {
	ins, del, upd float64
	rules         []string
	stmts         []string
	prefixCaveat  bool
}

func (t *indexTally) rule(r string) {
	for _, x := range t.rules {
		if x == r {
			return
		}
	}
	t.rules = append(t.rules, r)
}

func intersects(cols []string, set map[string]bool) bool {
	for _, c := range cols {
		if set[c] {
			return true
		}
	}
	return false
}

// DeriveIndexWrites fills per-index leaf inserts and deletes (and, for the
// clustered PRIMARY index, in-place leaf updates) from the statements the
// workload issued and InnoDB's rules, reading each index's key columns from
// the catalog. InnoDB counts none of this itself, so every number is labelled
// derived with its rule; the leaf-page growth of mysql.innodb_index_stats,
// where read, is put beside it in the Note as a measured cross-check.
func DeriveIndexWrites(d *collectors.Delta) {
	type tableKey struct{ schema, table string }
	indexes := map[tableKey][]collectors.Object{}
	pk := map[tableKey][]string{}
	var order []tableKey
	for _, o := range d.Objects {
		if o.Level != collectors.Index {
			continue
		}
		k := tableKey{o.Schema, o.Table}
		if _, ok := indexes[k]; !ok {
			order = append(order, k)
		}
		indexes[k] = append(indexes[k], o)
		if o.Info["primary"] == "true" {
			pk[k] = strings.Split(o.Info["columns"], ",")
		}
	}
	if len(d.Writes) == 0 {
		for _, k := range order {
			for _, o := range indexes[k] {
				d.Put(collectors.NewKey(collectors.Index, o.FQN(), result.LeafInserts), result.NA("derived: InnoDB rules", noStatementsWhy))
			}
		}
		return
	}
	matches := func(w collectors.Write, k tableKey) bool {
		return strings.EqualFold(w.Table, k.table) && (w.Schema == "" || strings.EqualFold(w.Schema, k.schema))
	}
	// Table row counts as the workload saw them.
	for _, k := range order {
		rows := map[string]float64{}
		for _, w := range d.Writes {
			if matches(w, k) {
				rows[w.Kind] += float64(w.Rows)
			}
		}
		obj := collectors.FQN(k.schema, k.table)
		for kind, metric := range map[string]*result.Info{"insert": result.RowsInserted, "update": result.RowsUpdated, "delete": result.RowsDeleted} {
			d.Put(collectors.NewKey(collectors.Table, obj, metric), result.New(rows[kind], result.Derived, derivedRowsSrc))
		}
	}
	for _, k := range order {
		for _, o := range indexes[k] {
			t := &indexTally{}
			cols := strings.Split(o.Info["columns"], ",")
			prefixed := map[string]bool{}
			for _, p := range strings.Split(o.Info["prefix"], ",") {
				if c, _, ok := strings.Cut(p, ":"); ok {
					prefixed[c] = true
				}
			}
			primary := o.Info["primary"] == "true"
			for _, w := range d.Writes {
				if !matches(w, k) {
					continue
				}
				set := map[string]bool{}
				for _, c := range w.Columns {
					set[strings.ToLower(c)] = true
				}
				n := float64(w.Rows)
				effect := ""
				switch w.Kind {
				case "insert":
					t.ins += n
					t.rule(ruleInsert)
					effect = "insert"
				case "delete":
					t.del += n
					t.rule(ruleDelete)
					effect = "delete-mark"
				case "update":
					pkChanged := intersects(pk[k], set)
					keyChanged := intersects(cols, set)
					switch {
					case pkChanged:
						t.ins += n
						t.del += n
						t.rule(ruleUpdatePK)
						effect = "delete-mark + insert"
					case keyChanged && !primary:
						t.ins += n
						t.del += n
						t.rule(ruleUpdateKey)
						effect = "delete-mark + insert"
						for c := range set {
							if prefixed[c] {
								t.prefixCaveat = true
							}
						}
					case primary:
						t.upd += n
						t.rule(ruleUpdateInPl)
						effect = "in-place"
					default:
						t.rule(ruleUpdateNoKey)
						effect = "untouched"
					}
				default:
					continue
				}
				t.stmts = append(t.stmts, fmt.Sprintf("%s %d rows %s", w.Statement, w.Rows, effect))
			}
			sort.Strings(t.stmts)
			sort.SliceStable(t.rules, func(i, j int) bool { return ruleRank[t.rules[i]] < ruleRank[t.rules[j]] })
			src := "derived: InnoDB rules"
			if len(t.rules) > 0 {
				src += " (" + strings.Join(t.rules, "; ") + ")"
			} else {
				src += " (no statement wrote this table)"
			}
			note := strings.Join(t.stmts, ", ")
			if t.prefixCaveat {
				note = joinNote(note, prefixCaveatNote)
			}
			if lp := d.Get(collectors.NewKey(collectors.Index, o.FQN(), result.LeafPages)); lp.OK() {
				note = joinNote(note, fmt.Sprintf("measured cross-check: leaf pages %+.0f (mysql.innodb_index_stats, recalculated inside the window)", lp.V()))
			}
			put := func(metric *result.Info, v float64) {
				m := result.New(v, result.Derived, src)
				m.Note = note
				d.Put(collectors.NewKey(collectors.Index, o.FQN(), metric), m)
			}
			put(result.LeafInserts, t.ins)
			put(result.LeafDeletes, t.del)
			if primary {
				put(result.LeafUpdates, t.upd)
			}
		}
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
