package main

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// xactRows is what reading each operation's transaction id (Runner.Xacts,
// the per-operation split of the log) costs an operation: its latency with
// the read appended to its pipelined statements and without.
func xactRows(ctx context.Context, t *progressTable, db *sql.DB, s dialects.Server) {
	pairs, n := 1, 10000
	if *quick {
		n = 2000
	}
	mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_x`)
	mustExec(db, `CREATE TABLE writeamp_bench_x (id int PRIMARY KEY, v int, d text)`)
	mustExec(db, `INSERT INTO writeamp_bench_x SELECT g, 0, repeat('x', 300) FROM generate_series(1, 2000) g`)
	defer mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_x`)
	// Operation by operation, alternating: each pair of operations sees the
	// same moment of the machine, so drift cancels in the medians.
	text, err := pg.Dialect{}.XactIDStmt(s)
	if err != nil {
		fatal(err.Error())
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		fatal(err.Error())
	}
	defer conn.Close()
	var with, without []float64
	for i := 0; i < pairs*n; i++ {
		upd := dialects.Stmt{SQL: `UPDATE writeamp_bench_x SET v = v + 1 WHERE id = $1`, Args: []any{1 + (i*7919)%2000}}
		var xid sql.NullInt64
		list := []dialects.Stmt{upd}
		if i%2 == 0 {
			list = append(list, dialects.Stmt{SQL: text, Query: true, Dest: []any{&xid}})
		}
		t0 := time.Now()
		if _, err := (pg.Dialect{}).Pipeline(ctx, conn, list); err != nil {
			fatal(err.Error())
		}
		d := float64(time.Since(t0).Microseconds())
		if i%2 == 0 {
			if !xid.Valid {
				fatal("xact bench: no transaction id after an UPDATE")
			}
			with = append(with, d)
		} else {
			without = append(without, d)
		}
	}
	sort.Float64s(with)
	sort.Float64s(without)
	w, wo := with[len(with)/2], without[len(without)/2]
	t.AppendRow(table.Row{fmt.Sprintf("one-UPDATE operation's median latency with its transaction id read (per-operation log split) vs without, %d operations alternating", pairs*n),
		fmt.Sprintf("%.0f µs", w), fmt.Sprintf("without %.0f µs", wo), fmt.Sprintf("%.3f", w/wo), "<= 1.10 (the cheapest operation: the read is a fixed ~25 µs)"})
}
