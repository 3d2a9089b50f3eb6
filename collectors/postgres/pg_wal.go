package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgWAL reads the WAL written between the two snapshots and counts, per
// relation, the records, bytes, full-page images and distinct pages changed,
// and per B-tree index the exact leaf inserts and leaf page splits. It also
// splits the cluster's WAL into what the scoped objects' transactions wrote
// and the rest (other relations, other databases, checkpoints).
//
// Two sources give the same figures: writeamp's own decoder of the pg_wal
// segments (read with pg_read_binary_file, or from the data directory when it
// is local), which needs pg_read_server_files but no extension and reads
// about as fast as pg_waldump; and pg_walinspect, whose functions can be
// granted on their own. The decoder is used where the login may read files.
type PgWAL struct{}

func (PgWAL) Name() string { return "pg_wal" }

func (PgWAL) Supports(s dialects.Server) error {
	if !s.Has(pg.CapPrimary) && !s.Has(pg.CapStandby) {
		return s.Unsupported(pg.CapPrimary)
	}
	if s.Has(pg.CapStandby) && !s.Has(pg.CapWALFiles) {
		// pg_walinspect is not used on a standby (standby.go).
		return s.Unsupported(pg.CapWALFiles)
	}
	if !s.Has(pg.CapWALFiles) && !s.Has(pg.CapWalinspect) {
		return &dialects.Unavailable{Reason: dialects.Both(s.Reason(pg.CapWALFiles), s.Reason(pg.CapWalinspect))}
	}
	return nil
}

// walRow is the WAL of one relation (node; 0: records of no relation) of one
// database, from transactions of one class: "scope" wrote a measured
// relation, "other" only other relations, "none" no relation at all.
type walRow struct {
	db, node                                                 int64
	xact                                                     string
	recs, bytes, fpiBytes, fpis, leafIns, leafSplit, newpage float64
}

type relKey struct {
	level collectors.Level
	obj   string
}

// relMap maps relfilenodes seen in either snapshot to the scoped object they
// belong to. A TOAST relation is an object of its own; a snapshot written
// before it was one names its table's TOAST relfilenodes (toast_filenodes),
// which then count as the table, unless an object of the other snapshot has
// the relfilenode as its own.
func relMap(before, after *collectors.Snapshot) map[int64]relKey {
	m := map[int64]relKey{}
	own := map[int64]bool{}
	for _, snap := range []*collectors.Snapshot{before, after} {
		for _, o := range snap.Objects {
			if n, err := strconv.ParseInt(o.ID, 10, 64); err == nil && n != 0 {
				m[n], own[n] = relKey{o.Level, o.FQN()}, true
			}
		}
	}
	for _, snap := range []*collectors.Snapshot{before, after} {
		for _, o := range snap.Objects {
			for _, t := range strings.Split(o.Info["toast_filenodes"], ",") {
				if n, err := strconv.ParseInt(t, 10, 64); err == nil && n != 0 && !own[n] {
					m[n] = relKey{o.Level, o.FQN()}
				}
			}
		}
	}
	return m
}

// walWindow is what a source needs to read the window.
type walWindow struct {
	start, end string // LSNs
	dboid      int64
	rels       map[int64]relKey // in-scope relfilenodes of dboid
	// xacts, when set, are the built-in workload's transactions (id to
	// operation): each in-scope record is added to ops under its
	// transaction's operation (opsplit.go).
	xacts *collectors.Xacts
	ops   *collectors.OperationLog
	seen  bitset // per transaction of xacts (Find's position): counted once
}

func (p PgWAL) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	cs, _, err := p.collect(ctx, qr, s, before, after, nil)
	return cs, err
}

// CollectOperations is CollectInterval that also splits the in-scope log by
// the workload's transactions.
func (p PgWAL) CollectOperations(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot, xacts *collectors.Xacts) ([]collectors.Counter, *collectors.OperationLog, error) {
	return p.collect(ctx, qr, s, before, after, xacts)
}

func (PgWAL) collect(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot, xacts *collectors.Xacts) ([]collectors.Counter, *collectors.OperationLog, error) {
	w := walWindow{start: before.Marks[MarkLSN], end: after.Marks[MarkLSN], rels: relMap(before, after)}
	if xacts != nil {
		w.xacts, w.ops, w.seen = xacts, &collectors.OperationLog{}, newBitset(xacts.Len())
	}
	if w.start == "" || w.end == "" {
		return nil, nil, fmt.Errorf("no WAL positions in the snapshots")
	}
	segSize, _ := strconv.ParseUint(s.Prop(pg.PropWALSegmentSize), 10, 64)
	w.end = recordsEnd(w.end, segSize)
	w.dboid, _ = strconv.ParseInt(s.Prop(pg.PropDatabaseOID), 10, 64)
	// The records up to the end LSN must be flushed before they can be read;
	// the WAL writer does that within its delay (200 ms by default).
	for i := 0; ; i++ {
		var ahead int64
		readable := "flush_lsn"
		if s.Has(pg.CapStandby) {
			readable = "replay_lsn_ahead"
		}
		if err := queries.QueryRow(ctx, qr, pg.Name, readable, s.VersionNum, w.end).Scan(&ahead); err != nil {
			return nil, nil, err
		}
		if ahead >= 0 {
			break
		}
		if i == 50 {
			return nil, nil, fmt.Errorf("WAL up to %s was not flushed after 5 s", w.end)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var rows []walRow
	var pages map[int64]float64
	var src string
	var err error
	if s.Has(pg.CapWALFiles) {
		rows, pages, src, err = decodeWindow(ctx, qr, s, w)
	} else {
		rows, pages, src, err = walinspectWindow(ctx, qr, s, w)
	}
	if err != nil {
		if errors.Is(err, errWALGone) || strings.Contains(err.Error(), "has already been removed") {
			return nil, nil, &collectors.LogLostError{Err: err, Why: fmt.Sprintf("the WAL from the window's start (%s) was recycled by a checkpoint before it could be read (%v): log bytes come from the LSN difference and pg_stat_wal, per-index leaf inserts are derived from the table counters. %s", w.start, err, holdAdvice(s))}
		}
		return nil, nil, err
	}
	out := walCounters(ctx, qr, s, w, after, rows, pages, src)
	if s.Has(pg.CapStandby) {
		var recs float64
		for _, r := range rows {
			recs += r.recs
		}
		out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.ReplayedLogRecords), Value: recs, Exactness: result.Exact,
			Source: src + ": records of the window read from the standby's own pg_wal, between its replay positions", Interval: true})
	}
	if w.ops != nil {
		w.ops.Source = src
	}
	return out, w.ops, nil
}

// walCounters turns the window's rows into the per-object and database
// figures.
func walCounters(ctx context.Context, qr dialects.Querier, s dialects.Server, w walWindow, after *collectors.Snapshot, rows []walRow, pages map[int64]float64, src string) []collectors.Counter {
	perObj := map[relKey]*walRow{}
	objPages := map[relKey]float64{}
	for node, n := range pages {
		if k, ok := w.rels[node]; ok {
			objPages[k] += n
		}
	}
	var inScope, otherRel, otherNone, allFPI walRow
	otherNodes := map[int64]float64{} // this database's other relations, by WAL bytes
	for _, a := range rows {
		allFPI.fpiBytes += a.fpiBytes
		allFPI.fpis += a.fpis
		allFPI.recs += a.recs
		allFPI.bytes += a.bytes
		k, mine := w.rels[a.node]
		if a.db != w.dboid {
			mine = false
		}
		switch {
		case mine:
			t := perObj[k]
			if t == nil {
				t = &walRow{}
				perObj[k] = t
			}
			t.recs += a.recs
			t.bytes += a.bytes
			t.fpiBytes += a.fpiBytes
			t.fpis += a.fpis
			t.leafIns += a.leafIns
			t.leafSplit += a.leafSplit
			t.newpage += a.newpage
			inScope.bytes += a.bytes
			inScope.recs += a.recs
		case a.node == 0 && a.xact == "scope":
			// Commit records and the like of transactions that wrote the
			// scoped objects; their records on other relations stay with
			// those relations.
			inScope.bytes += a.bytes
			inScope.recs += a.recs
		case a.node != 0 || a.xact == "other":
			otherRel.bytes += a.bytes
			otherRel.recs += a.recs
			if a.db == w.dboid && a.node != 0 {
				otherNodes[a.node] += a.bytes
			}
		default:
			otherNone.bytes += a.bytes
			otherNone.recs += a.recs
		}
	}
	iv := func(level collectors.Level, obj string, metric *result.Info, v float64, source string) collectors.Counter {
		return collectors.Counter{Key: collectors.NewKey(level, obj, metric), Value: v, Exactness: result.Exact, Source: source, Interval: true}
	}
	var out []collectors.Counter
	// Every scoped object gets figures, zero included: "no WAL" is a finding.
	seen := map[relKey]bool{}
	for _, o := range after.Objects {
		k := relKey{o.Level, o.FQN()}
		if seen[k] {
			continue
		}
		seen[k] = true
		if o.Info["partitioned"] == "true" {
			continue // no storage: its partitions' figures are its own (collectors.DeriveParts)
		}
		a := perObj[k]
		if a == nil {
			a = &walRow{}
		}
		out = append(out,
			iv(o.Level, k.obj, result.LogBytes, a.bytes, src+": sum(record_length) of records whose first block is this relation"),
			iv(o.Level, k.obj, result.LogRecords, a.recs, src+": records whose first block is this relation"),
			iv(o.Level, k.obj, result.FpiBytes, a.fpiBytes, src+": sum(fpi_length)"),
			iv(o.Level, k.obj, result.FpiCount, a.fpis, src+": records carrying a full-page image of this relation"),
			iv(o.Level, k.obj, result.PagesTouched, objPages[k], src+": distinct blocks of the relation (main fork) that the window's records changed"))
		if o.Level == collectors.Table {
			out = append(out, iv(o.Level, k.obj, result.NewpageUpdates, a.newpage, src+": Heap UPDATE records with a second block (the new version went to another page)"))
		}
		if o.Level == collectors.Index && o.Info["method"] == "btree" {
			out = append(out,
				iv(o.Level, k.obj, result.LeafInserts, a.leafIns, src+": Btree INSERT_LEAF + INSERT_POST + level-0 SPLIT_L/SPLIT_R records"),
				iv(o.Level, k.obj, result.LeafPageSplits, a.leafSplit, src+": Btree level-0 SPLIT_L/SPLIT_R records"))
		}
	}
	otherObjects := iv(collectors.DB, "", result.LogBytesOtherObjects, otherRel.bytes, src+": records on relations outside the scope (other tables, other databases, catalogs) and the commit records of the transactions that wrote them")
	otherObjects.Note = largestOthers(ctx, qr, s, otherNodes)
	return append(out, otherObjects,
		iv(collectors.DB, "", result.FpiBytes, allFPI.fpiBytes, src+": sum(fpi_length), whole cluster"),
		iv(collectors.DB, "", result.LogRecordsDecoded, allFPI.recs, src+": every record of the window, whole cluster"),
		iv(collectors.DB, "", result.LogBytesDecoded, allFPI.bytes, src+": sum(record_length) of every record of the window, whole cluster (what pg_stat_wal.wal_bytes counts)"),
		iv(collectors.DB, "", result.LogBytesInScope, inScope.bytes, src+": records on the measured objects and the other records (commits) of the transactions that wrote them"),
		iv(collectors.DB, "", result.LogBytesOther, otherNone.bytes, src+": records of no relation outside any writing transaction (checkpoints, running-xacts snapshots, WAL switches)"),
	)
}

// recordsEnd is where the window's records end for an insert position
// mark. pg_current_wal_insert_lsn() never points at a page boundary: on a
// page nothing was written to yet it points past the page's header
// (XLogBytePosToRecPtr in xlog.c), a header that is neither written nor
// flushed until the next record comes. Waiting for that flush, or reading
// the page, would wait on WAL the window does not have (a quiet server may
// write none for seconds), so the records end at the page boundary. Only
// just past the header: the short header (24 bytes) of a page within a
// segment, the long one (40) of a segment's first page. 40 bytes into
// another page is the end of a record continued from the page before.
func recordsEnd(mark string, segSize uint64) string {
	lsn, err := parseLSN(mark)
	if err != nil {
		return mark
	}
	off := lsn % walPageSize
	first := segSize != 0 && lsn%segSize == off
	if (off == shortPageHeader && !first) || (off == longPageHeader && first) {
		lsn -= off
		return fmt.Sprintf("%X/%X", lsn>>32, uint32(lsn))
	}
	return mark
}

// holdAdvice says how a long window keeps its WAL next time.
func holdAdvice(s dialects.Server) string {
	if s.Has(pg.CapHoldWAL) {
		return "writeamp holds the WAL with a replication slot from `writeamp snapshot` (without --hold-wal=false) and for run/measure windows."
	}
	return "With a replication slot writeamp keeps it: " + s.Why(pg.CapHoldWAL)
}

// largestOthers names the out-of-scope relations of this database that took
// the most WAL in the window (often catalog pages pruned on access), so a
// warning about them says what they were.
func largestOthers(ctx context.Context, qr dialects.Querier, s dialects.Server, nodes map[int64]float64) string {
	type rel struct {
		node  int64
		bytes float64
	}
	var rels []rel
	for n, b := range nodes {
		rels = append(rels, rel{n, b})
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i].bytes > rels[j].bytes })
	var parts []string
	for _, r := range rels[:min(3, len(rels))] {
		var name string
		if err := queries.QueryRow(ctx, qr, pg.Name, "relation_of_filenode", s.VersionNum, r.node).Scan(&name); err != nil || name == "" {
			name = fmt.Sprintf("relfilenode %d", r.node)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f B", name, r.bytes))
	}
	if len(parts) == 0 {
		return ""
	}
	return "largest in this database: " + strings.Join(parts, ", ")
}
