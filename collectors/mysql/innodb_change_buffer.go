package mysql

import (
	"context"
	"fmt"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// InnodbChangeBuffer reads InnoDB's change buffer: how many buffered changes
// to non-unique secondary-index pages were merged in the window, by kind,
// and how much the buffer grew (INFORMATION_SCHEMA.INNODB_METRICS, subsystem
// change_buffer; without PROCESS, MariaDB's Innodb_ibuf_* status
// variables). It records which changes the server buffers
// (innodb_change_buffering) as a mark, so the report says whether the change
// buffer can defer index writes past the window on the server measured (a
// caveat of the measurement): MariaDB buffers nothing by default since
// 10.5.15/10.6.7 and has no change buffer from 11.0.
type InnodbChangeBuffer struct{}

// MarkChangeBuffering holds innodb_change_buffering ("" when the server has
// no change buffer).
const MarkChangeBuffering = "innodb_change_buffering"

func (InnodbChangeBuffer) Name() string                   { return "innodb_change_buffer" }
func (InnodbChangeBuffer) Supports(dialects.Server) error { return nil }

func (InnodbChangeBuffer) mode(ctx context.Context, qr dialects.Querier, s dialects.Server) (string, bool, error) {
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_change_buffering", s.VersionNum)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	var name, value string
	if rows.Next() {
		if err := rows.Scan(&name, &value); err != nil {
			return "", false, err
		}
		return value, true, rows.Err()
	}
	return "", false, rows.Err()
}

// Marks never fails the snapshot: without the mark the report only lacks
// the note, and Collect records why.
func (c InnodbChangeBuffer) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	mode, ok, err := c.mode(ctx, qr, s)
	if err != nil {
		return nil, nil
	}
	if !ok {
		mode = ""
	}
	return map[string]string{MarkChangeBuffering: mode}, nil
}

// ibufMetrics maps INNODB_METRICS and status variable names to metrics.
var ibufMetrics = map[string]*result.Info{
	"ibuf_merges":                     result.IbufMerges,
	"ibuf_merges_insert":              result.IbufMergedInserts,
	"ibuf_merges_delete_mark":         result.IbufMergedDeleteMarks,
	"ibuf_merges_delete":              result.IbufMergedDeletes,
	"ibuf_size":                       result.IbufSizePages,
	"Innodb_ibuf_merges":              result.IbufMerges,
	"Innodb_ibuf_merged_inserts":      result.IbufMergedInserts,
	"Innodb_ibuf_merged_delete_marks": result.IbufMergedDeleteMarks,
	"Innodb_ibuf_merged_deletes":      result.IbufMergedDeletes,
}

func (c InnodbChangeBuffer) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	mode, ok, err := c.mode(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", dialects.ErrUnsupported, ChangeBufferNote(""))
	}
	note := ChangeBufferNote(mode)
	if mode == "none" {
		note += "; merges count changes buffered before"
	}
	var out []collectors.Counter
	add := func(name string, v float64, source string) {
		m := ibufMetrics[name]
		k := collectors.NewCounter(collectors.DB, "", m, v, result.Exact, source, "")
		k.Note = note
		if m == result.IbufSizePages {
			k.Gauge = true
			k.Source = source + ": the change in size over the window"
		}
		out = append(out, k)
	}
	if !s.Has(my.CapInnodbMetrics) {
		if !my.IsMariaDB(s) {
			return nil, &dialects.PrivilegeError{Privilege: "PROCESS", Grant: "GRANT PROCESS ON *.* TO " + s.Prop(my.PropHostUser),
				Err: fmt.Errorf("%w: INFORMATION_SCHEMA.INNODB_METRICS (change buffer merges) needs it", dialects.ErrUnsupported)}
		}
		st, err := GlobalStatus{}.readBlock(ctx, qr, s, "global_status_change_buffer")
		if err != nil {
			return nil, err
		}
		for name, v := range st {
			add(name, v, name+" (status variable, whole server)")
		}
		return out, nil
	}
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_metrics_change_buffer", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var count float64
		var on bool
		if err := rows.Scan(&name, &count, &on); err != nil {
			return nil, err
		}
		if on {
			add(name, count, "INFORMATION_SCHEMA.INNODB_METRICS "+name+" (whole server)")
		}
	}
	return out, rows.Err()
}

// ChangeBufferNote says what innodb_change_buffering means for this
// measurement: whether InnoDB's change buffer can defer non-unique
// secondary-index changes past the window ("" = the server has no change
// buffer).
func ChangeBufferNote(mode string) string {
	switch mode {
	case "":
		return "this server has no InnoDB change buffer (MariaDB removed it in 11.0): every secondary-index change is made on its index page at once, within the window measured"
	case "none":
		return "innodb_change_buffering = none on this server (MariaDB's default since 10.5.15/10.6.7, MySQL's since 8.4): InnoDB's change buffer defers no secondary-index change, so each is written within the window measured"
	default:
		return "innodb_change_buffering = " + mode + ": InnoDB defers these changes to non-unique secondary-index pages that are not in the buffer pool, and merges them later"
	}
}

// DeriveChangeBufferNote says once per run, beside the numbers, when the
// change buffer is off or absent on the server measured.
func DeriveChangeBufferNote(d *collectors.Delta) {
	if d.After == nil {
		return
	}
	mode, ok := d.After.Marks[MarkChangeBuffering]
	if !ok || (mode != "" && mode != "none") {
		return
	}
	d.Warn(collectors.WarnOther, "", "", "InnoDB change buffer: "+ChangeBufferNote(mode))
}

// readBlock reads a SHOW GLOBAL STATUS block into numbers.
func (GlobalStatus) readBlock(ctx context.Context, qr dialects.Querier, s dialects.Server, block string) (map[string]float64, error) {
	rows, err := queries.Query(ctx, qr, my.Name, block, s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("status variable %s = %q is not a number", name, value)
		}
		out[name] = v
	}
	return out, rows.Err()
}
