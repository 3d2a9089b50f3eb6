package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// InnodbBufferPage counts the pages of each index modified in the window:
// InnoDB keeps no per-index page-write counter, but every page in the buffer
// pool carries the LSN of its latest change (INNODB_BUFFER_PAGE
// .NEWEST_MODIFICATION, kept after the page is written back), so the pages
// whose LSN falls between the before and after snapshots' redo LSNs are the
// pages the window changed. pages_touched per index, and per table for its
// clustered index (the table's rows), labelled approx with the method.
//
// What it cannot see: a page modified in the window and evicted from the
// buffer pool before the read (an undercount, which a buffer pool larger than
// the workload's tables avoids), a page freed in the window (merged or
// dropped), and a change still held in the change buffer (not on its index
// page yet: see ibuf_*). Pages changed by purge before the after snapshot
// count, as the window's work.
type InnodbBufferPage struct{}

func (InnodbBufferPage) Name() string { return "innodb_buffer_page" }

func (InnodbBufferPage) Supports(s dialects.Server) error {
	if !s.Has(my.CapInnodbMetrics) {
		return &dialects.PrivilegeError{Privilege: "PROCESS", Grant: "GRANT PROCESS ON *.* TO " + s.Prop(my.PropHostUser),
			Err: fmt.Errorf("%w: INFORMATION_SCHEMA.INNODB_BUFFER_PAGE (pages touched per index) needs it", dialects.ErrUnsupported)}
	}
	if !s.Has(my.CapLSNCurrent) && !s.Has(my.CapRedoLSN) {
		return fmt.Errorf("%w: no redo LSN status variable on this server (MariaDB's Innodb_lsn_current, MySQL 8.0.30+'s Innodb_redo_log_current_lsn), so the window's LSN range is unknown", dialects.ErrUnsupported)
	}
	return nil
}

const touchedSource = "INFORMATION_SCHEMA.INNODB_BUFFER_PAGE, the index's pages in the buffer pool whose page LSN (NEWEST_MODIFICATION) lies between the window's redo LSNs"

const touchedNote = "pages modified in the window and evicted from the buffer pool before the read, pages freed in the window, and changes still in the change buffer are not counted"

func (InnodbBufferPage) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	lo, err1 := strconv.ParseUint(before.Marks[MarkLSN], 10, 64)
	hi, err2 := strconv.ParseUint(after.Marks[MarkLSN], 10, 64)
	if err1 != nil || err2 != nil || hi < lo {
		return nil, fmt.Errorf("%w: the snapshots hold no redo LSN range (%q, %q)", dialects.ErrUnsupported, before.Marks[MarkLSN], after.Marks[MarkLSN])
	}
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_buffer_page_touched", s.VersionNum, lo, hi)
	if pe := my.AsPrivilegeError(err, s, "PROCESS", "GRANT PROCESS ON *.* TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type idx struct{ schema, table, index string }
	touched := map[idx]float64{}
	for rows.Next() {
		var table, index string
		var n float64
		if err := rows.Scan(&table, &index, &n); err != nil {
			return nil, err
		}
		schema, tbl, ok := splitBufferPageTable(table)
		tbl = PartitionedTable(tbl) // MySQL 8 names a partition t#p#p0
		if !ok {
			continue // an internal table (SYS_*, the change buffer)
		}
		touched[idx{schema, tbl, index}] += n // partitions of one index add up
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []collectors.Counter
	for _, o := range after.Objects {
		if o.Level != collectors.Index || o.Info["index_name"] == "" {
			continue
		}
		n := touched[idx{o.Schema, o.Table, o.Info["index_name"]}]
		c := collectors.NewCounter(collectors.Index, o.FQN(), result.PagesTouched, n, result.Approx, touchedSource, "")
		c.Interval, c.Note = true, touchedNote
		out = append(out, c)
		if o.Info["clustered"] == "true" {
			t := collectors.NewCounter(collectors.Table, collectors.FQN(o.Schema, o.Table), result.PagesTouched, n, result.Approx, touchedSource+" (the clustered index "+o.Info["index_name"]+": the table's rows)", "")
			t.Interval, t.Note = true, touchedNote
			out = append(out, t)
		}
	}
	return out, nil
}

// splitBufferPageTable reads INNODB_BUFFER_PAGE.TABLE_NAME, "`schema`.`table`"
// with backquotes doubled inside names and, for a partition, a trailing
// "/* Partition `p0` */" comment.
func splitBufferPageTable(s string) (schema, table string, ok bool) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, " /*"); i >= 0 {
		s = s[:i]
	}
	schema, rest, ok := unquoteIdent(s)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", "", false
	}
	table, rest, ok = unquoteIdent(rest[1:])
	return schema, table, ok && rest == ""
}

// unquoteIdent reads one `quoted` identifier from the start of s.
func unquoteIdent(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, "`") {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '`' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '`' {
			b.WriteByte('`')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", s, false
}
