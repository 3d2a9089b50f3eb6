package measure_test

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/writeamp/writeamp/collectors"
	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// indexTIDs counts the heap TIDs an index's leaf pages hold, posting lists
// counted per TID and high keys left out (pageinspect): before and after a
// VACUUM, the difference is what it removed, since nothing else writes.
const indexTIDs = `
WITH m AS (SELECT level FROM bt_metap($1)),
p AS MATERIALIZED (
  SELECT b::int AS blk, s.type, s.btpo_next
  FROM generate_series(1, pg_relation_size($1::regclass) / current_setting('block_size')::int - 1) b,
       LATERAL bt_page_stats($1, b::int) s
  WHERE s.type = 'l' OR (s.type = 'r' AND (SELECT level FROM m) = 0))
SELECT coalesce(sum(CASE WHEN i.tids IS NULL THEN 1 ELSE cardinality(i.tids) END), 0)::bigint
FROM p, LATERAL bt_page_items($1, p.blk) i
WHERE NOT (p.btpo_next <> 0 AND i.itemoffset = 1)`

// scopeBtrees are the B-tree indexes of a scope's schemas, by name, with
// their tables' page counts.
func scopeBtrees(t *testing.T, db *sql.DB, sc collectors.Scope) (ixs map[string]string, pages map[string]float64) {
	t.Helper()
	ixs, pages = map[string]string{}, map[string]float64{}
	rows, err := db.Query(`SELECT c.relname, format('%I.%I', n.nspname, c.relname), c.relkind::text,
	       pg_relation_size(c.oid) / current_setting('block_size')::int
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_am a ON a.oid = c.relam
	WHERE n.nspname = ANY($1) AND c.relname <> 'writeamp_owner' -- the schema's owner record, outside the scope
	  AND (c.relkind = 'r' OR (c.relkind = 'i' AND a.amname = 'btree'))`, sc.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, qual, kind string
		var n float64
		if err := rows.Scan(&name, &qual, &kind, &n); err != nil {
			t.Fatal(err)
		}
		if kind == "i" {
			ixs[name] = qual
		} else {
			pages[name] = n
		}
	}
	return ixs, pages
}

func countTIDs(t *testing.T, db *sql.DB, qual string) float64 {
	t.Helper()
	var n float64
	if err := db.QueryRow(indexTIDs, qual).Scan(&n); err != nil {
		t.Fatalf("count the entries of %s: %v", qual, err)
	}
	return n
}

// TestVacuumEveryPostgresMajor: run --vacuum's figures against what the
// test counts itself, on every major. The index entries each VACUUM removed
// equal the TIDs pageinspect finds in the index before it less those after;
// the heap pages it scanned are the table's pages (no page is all-visible
// before a table's first vacuum); baseline, whose every refresh adds a dead
// entry to every index of the session table, leaves more for VACUUM to
// remove than coarse, whose refreshes are HOT and pruned on the page. From
// 15 on, each relation's vacuum_log_bytes (writeamp's WAL decoder) equals
// pg_walinspect's sum of the window's records whose first block is it.
func TestVacuumEveryPostgresMajor(t *testing.T) {
	pgmatrix.Each(t, func(t *testing.T, srv *pgmatrix.Server) {
		db, s := openPG(t, srv.DSN)
		ext := "CREATE EXTENSION IF NOT EXISTS pageinspect"
		if srv.Major >= 15 {
			ext += "; CREATE EXTENSION IF NOT EXISTS pg_walinspect"
		}
		if _, err := db.Exec(ext); err != nil {
			t.Fatal(err)
		}
		before := map[string]map[string]float64{} // variant -> index -> TIDs
		pagesBefore := map[string]map[string]float64{}
		quals := map[string]map[string]string{}
		defer measure.SetBeforeVacuum(func(v string, sc collectors.Scope) {
			ixs, pages := scopeBtrees(t, db, sc)
			before[v], pagesBefore[v], quals[v] = map[string]float64{}, pages, ixs
			for name, q := range ixs {
				before[v][name] = countTIDs(t, db, q)
			}
		})()
		p := refreshtoken.DefaultParams()
		p.Logins, p.RefreshesPerLogin = 100, 5
		exp := &measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(p), Variants: refreshtoken.Variants, Vacuum: true, Keep: true}
		res, err := exp.Run(context.Background())
		if res != nil {
			t.Cleanup(func() { dropSchemas(t, db, res) })
		}
		if err != nil {
			t.Fatal(err)
		}
		removed := map[string]float64{}
		for _, run := range res.Runs {
			if before[run.Variant] == nil {
				t.Fatalf("%s: the vacuum never ran", run.Variant)
			}
			for name, q := range quals[run.Variant] {
				want := before[run.Variant][name] - countTIDs(t, db, q)
				got := metric(t, run.Index(name), "vacuum_index_entries_removed")
				if got.Exactness != result.Exact || got.V() != want {
					t.Errorf("%s %s: vacuum_index_entries_removed %v (%s), pageinspect counts %v removed", run.Variant, name, got.V(), got.Exactness, want)
				}
				if name == "idx_user_session_expiration_last_refresh" {
					removed[run.Variant] = got.V()
				}
			}
			for name, n := range pagesBefore[run.Variant] {
				if run.Table(name) == nil {
					t.Errorf("%s: table %s of the scope is not in the run", run.Variant, name)
					continue
				}
				if got := metric(t, run.Table(name), "vacuum_pages_scanned"); got.V() != n {
					t.Errorf("%s %s: vacuum_pages_scanned %v, the table had %v pages", run.Variant, name, got.V(), n)
				}
			}
			dbFigures := []string{"vacuum_log_bytes", "vacuum_log_records", "vacuum_fpi_count"}
			if srv.Major < 14 {
				dbFigures = dbFigures[:1] // records and FPIs come from pg_stat_wal (14+)
			}
			for _, m := range dbFigures {
				if got, ok := run.Database[m]; !ok || !got.OK() || got.V() <= 0 {
					t.Errorf("%s: database %s = %+v, want a positive figure", run.Variant, m, got)
				}
			}
			// Buffer accesses: every relation the workload wrote was read
			// through shared buffers (pg_statio_*, exact per relation); the
			// cluster's pg_stat_io (16+) saw at least those hits.
			us := run.Table("offline_user_session")
			if h := metric(t, us, "buffer_hits"); h.Exactness != result.Exact || h.V() <= 0 {
				t.Errorf("%s: offline_user_session buffer_hits %+v", run.Variant, h)
			}
			if srv.Major >= 16 {
				if h := run.Database["buffer_hits"]; h.Exactness != result.Approx || h.V() < metric(t, us, "buffer_hits").V() {
					t.Errorf("%s: pg_stat_io buffer_hits %+v, fewer than one table's own %v", run.Variant, h, metric(t, us, "buffer_hits").V())
				}
			}
			for _, w := range run.Warnings {
				t.Logf("%s: warning: %s", run.Variant, w)
			}
			if srv.Major >= 15 {
				vacuumWALMatches(t, db, s, &run)
			}
		}
		if removed["baseline"] <= removed["coarse"] {
			t.Errorf("the expiration index: baseline's vacuum removed %v entries, coarse's %v; baseline's non-HOT refreshes must leave more", removed["baseline"], removed["coarse"])
		}
	})
}

// walByRelation is pg_walinspect's sum of record lengths per relfilenode of
// the current database, by each record's first block.
const walByRelation15 = `
SELECT (regexp_match(block_ref, 'blkref #0: rel \d+/\d+/(\d+)'))[1]::bigint, sum(record_length)::bigint
FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
WHERE (regexp_match(block_ref, 'blkref #0: rel \d+/(\d+)/'))[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database())
GROUP BY 1`

const walByRelation16 = `
SELECT b.relfilenode::bigint, sum(r.record_length)::bigint
FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r
JOIN (SELECT DISTINCT ON (start_lsn) start_lsn, relfilenode, reldatabase
      FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) ORDER BY start_lsn, block_id) b USING (start_lsn)
WHERE b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
GROUP BY 1`

func vacuumWALMatches(t *testing.T, db *sql.DB, s dialects.Server, run *result.Run) {
	t.Helper()
	from, to := run.Window.Marks["vacuum_"+pgcollect.MarkLSN+"_before"], run.Window.Marks["vacuum_"+pgcollect.MarkLSN+"_after"]
	if from == "" || to == "" {
		t.Fatalf("%s: no vacuum window LSNs in %v", run.Variant, run.Window.Marks)
	}
	q := walByRelation16
	if s.VersionNum < 160000 {
		q = walByRelation15
	}
	rows, err := db.Query(q, from, to)
	if err != nil {
		t.Fatal(err)
	}
	byNode := map[int64]float64{}
	for rows.Next() {
		var node int64
		var n float64
		if err := rows.Scan(&node, &n); err != nil {
			t.Fatal(err)
		}
		byNode[node] = n
	}
	rows.Close()
	var recSum float64
	if err := db.QueryRow(`SELECT coalesce(sum(record_length), 0) FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)`, from, to).Scan(&recSum); err != nil {
		t.Fatal(err)
	}
	// A table's figures include its TOAST table's; the TOAST table and index
	// are named after the table ("t (TOAST)", "t (TOAST index)").
	nodeOf := func(schema, name string) (node, toast, toastIdx int64) {
		if err := db.QueryRow(`SELECT pg_relation_filenode(c.oid), coalesce(pg_relation_filenode(c.reltoastrelid), 0), coalesce(pg_relation_filenode(i.indexrelid), 0)
		    FROM pg_class c LEFT JOIN pg_index i ON i.indrelid = c.reltoastrelid AND c.reltoastrelid <> 0
		    WHERE c.oid = format('%I.%I', $1::text, $2::text)::regclass`, schema, name).Scan(&node, &toast, &toastIdx); err != nil {
			t.Fatal(err)
		}
		return node, toast, toastIdx
	}
	for i, objs := range [][]result.Object{run.Tables, run.Indexes} {
		for _, o := range objs {
			var want float64
			switch owner := strings.TrimSuffix(strings.TrimSuffix(o.Name, " (TOAST)"), " (TOAST index)"); o.Info["toast"] {
			case "table":
				_, toast, _ := nodeOf(o.Schema, owner)
				want = byNode[toast]
			case "index":
				_, _, toastIdx := nodeOf(o.Schema, owner)
				want = byNode[toastIdx]
			default:
				node, toast, _ := nodeOf(o.Schema, o.Name)
				want = byNode[node]
				if i == 0 {
					want += byNode[toast]
				}
			}
			got := metric(t, &o, "vacuum_log_bytes")
			if got.V() != want {
				t.Errorf("%s %s: vacuum_log_bytes %v, pg_walinspect %v", run.Variant, o.Name, got.V(), want)
			}
		}
	}
	// The database figure is the LSN difference: every record plus page
	// headers and alignment, so a little above the records' own bytes.
	total := run.Database["vacuum_log_bytes"].V()
	if total < recSum || total > recSum*1.02 {
		t.Errorf("%s: vacuum_log_bytes %v, pg_walinspect's records sum to %v (want the LSN difference: at most 2%% more)", run.Variant, total, recSum)
	}
	if lsnDiff := lsnBytes(t, to) - lsnBytes(t, from); math.Abs(lsnDiff-total) > 0 {
		t.Errorf("%s: vacuum_log_bytes %v, the window's LSNs are %v bytes apart", run.Variant, total, lsnDiff)
	}
}

// lsnBytes reads an LSN "X/Y" as a byte position.
func lsnBytes(t *testing.T, lsn string) float64 {
	t.Helper()
	var hi, lo string
	for i := range lsn {
		if lsn[i] == '/' {
			hi, lo = lsn[:i], lsn[i+1:]
		}
	}
	h, err1 := strconv.ParseUint(hi, 16, 64)
	l, err2 := strconv.ParseUint(lo, 16, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("LSN %q", lsn)
	}
	return float64(h<<32 | l)
}

// dropSchemas removes what a kept run left.
func dropSchemas(t *testing.T, db *sql.DB, res *result.Result) {
	seen := map[string]bool{}
	for _, run := range res.Runs {
		for _, o := range run.Tables {
			if o.Schema != "" && !seen[o.Schema] {
				seen[o.Schema] = true
				if _, err := db.Exec(`DROP SCHEMA ` + pgx.Identifier{o.Schema}.Sanitize() + ` CASCADE`); err != nil {
					t.Errorf("drop %s: %v", o.Schema, err)
				}
			}
		}
	}
}
