package mysql_test

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
)

func tableValue(d *collectors.Delta, obj, metric string) float64 {
	m := d.Get(collectors.Key{Level: collectors.Table, Object: obj, Metric: metric})
	if !m.OK() {
		return -1
	}
	return m.V()
}

// The rows a wrapped command writes, per table, are the server's own count
// where it keeps one: performance_schema's table I/O, else MariaDB's
// TABLE_STATISTICS (userstat), else none (check's /op is then per command).
// Each is held to what the test did, table by table, with another table
// written in the same window that must not count.
func TestRowsWrittenPerTable(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	if !my.IsMariaDB(s) {
		t.Skip("the userstat and per-command cases switch MariaDB's settings")
	}
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, v int, KEY iv (v)) ENGINE=InnoDB",
		"CREATE TABLE "+name+".other (id int PRIMARY KEY) ENGINE=InnoDB")
	var perfSchema int
	var instrument, userstat string
	db.QueryRow("SELECT @@GLOBAL.performance_schema, @@GLOBAL.userstat").Scan(&perfSchema, &userstat)
	db.QueryRow("SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'wait/io/table/sql/handler'").Scan(&instrument)
	t.Cleanup(func() {
		db.Exec("SET GLOBAL userstat = " + userstat)
		if instrument != "" {
			db.Exec("UPDATE performance_schema.setup_instruments SET ENABLED = ? WHERE NAME = 'wait/io/table/sql/handler'", instrument)
		}
	})
	instrumentOff := []string{}
	if perfSchema == 1 {
		instrumentOff = []string{"UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = 'wait/io/table/sql/handler'"}
	}
	const n, u, del = 300, 120, 30
	sc := collectors.Scope{Schemas: []string{name}, Tables: []string{"t", "other"}}
	work := func() []collectors.Write {
		exec(t, db, n, "INSERT INTO "+name+".t VALUES (%[1]d, 0)")
		exec(t, db, u, "UPDATE "+name+".t SET v = v + 1 WHERE id = %d")
		mysqltest.Exec(t, db, "UPDATE "+name+".t SET v = v WHERE id = 1") // leaves the row as it was: not a row written
		exec(t, db, del, "DELETE FROM "+name+".t WHERE id = %d")
		exec(t, db, 7, "INSERT INTO "+name+".other VALUES (%d)")
		mysqltest.Exec(t, db, "DELETE FROM "+name+".other")
		return nil
	}
	type tc struct {
		setup      []string
		cap        string
		wantSplit  bool
		wantNone   bool
		wantReason string
	}
	cases := []tc{
		{setup: append([]string{"SET GLOBAL userstat = 1"}, instrumentOff...), cap: my.CapUserstat},
		{setup: append([]string{"SET GLOBAL userstat = 0"}, instrumentOff...), wantNone: true, wantReason: "SET GLOBAL userstat = 1"},
	}
	if perfSchema == 1 {
		cases = append(cases, tc{setup: []string{"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = 'wait/io/table/sql/handler'", "SET GLOBAL userstat = 0"}, cap: my.CapTableIO, wantSplit: true})
	} else {
		// performance_schema is a start-up setting, off by default on
		// MariaDB: its query is held to a fixture by TestTableIOWaitsQuery.
		t.Log("performance_schema is off on this server: the table I/O case runs where it is on")
	}
	for _, c := range cases {
		mysqltest.Exec(t, db, append([]string{"TRUNCATE " + name + ".t", "TRUNCATE " + name + ".other"}, c.setup...)...)
		_, s := mysqltest.OpenDSN(t, mysqltest.DSN(t)) // probed again: the capabilities follow the settings
		if c.cap != "" && !s.Has(c.cap) {
			t.Fatalf("%v: capability %s not probed: %s", c.setup, c.cap, s.Why(c.cap))
		}
		d := window(t, db, s, sc, work)
		t0, o := name+".t", name+".other"
		switch {
		case c.wantNone:
			found := false
			for _, m := range d.Missing {
				found = found || m.Collector == "table_io_waits_summary_by_table" && strings.Contains(m.Reason, c.wantReason)
			}
			if tableValue(d, t0, "rows_updated") != -1 || tableValue(d, t0, "rows_written") != -1 || !found {
				t.Errorf("no counter on: rows %v/%v, missing %+v", tableValue(d, t0, "rows_updated"), tableValue(d, t0, "rows_written"), d.Missing)
			}
		case c.wantSplit:
			if tableValue(d, t0, "rows_inserted") != n || tableValue(d, t0, "rows_updated") != u || tableValue(d, t0, "rows_deleted") != del ||
				tableValue(d, o, "rows_inserted") != 7 || tableValue(d, o, "rows_deleted") != 7 {
				t.Errorf("performance_schema: t %v/%v/%v, other %v/%v", tableValue(d, t0, "rows_inserted"), tableValue(d, t0, "rows_updated"), tableValue(d, t0, "rows_deleted"),
					tableValue(d, o, "rows_inserted"), tableValue(d, o, "rows_deleted"))
			}
		default:
			if tableValue(d, t0, "rows_written") != n+u+del || tableValue(d, o, "rows_written") != 14 {
				t.Errorf("TABLE_STATISTICS: t %v (want %d), other %v (want 14)", tableValue(d, t0, "rows_written"), n+u+del, tableValue(d, o, "rows_written"))
			}
		}
	}
}
