package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/heappeak"
	"github.com/writeamp/writeamp/queries"
)

// BenchmarkDecodeWindow decodes one window of WRITEAMP_BENCH_WAL_ROWS
// inserted rows (200,000 by default; a third of them updated) on the
// server of WRITEAMP_TEST_PG_DSN, with the segments read from the data
// directory and over the connection: the profile behind bench's WAL rows
// (go test -run x -bench DecodeWindow -cpuprofile cpu.out).
func BenchmarkDecodeWindow(b *testing.B) {
	dsn := os.Getenv("WRITEAMP_TEST_PG_DSN")
	if dsn == "" {
		b.Skip("WRITEAMP_TEST_PG_DSN is not set")
	}
	rows := 200000
	if n, err := strconv.Atoi(os.Getenv("WRITEAMP_BENCH_WAL_ROWS")); err == nil {
		rows = n
	}
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	exec := func(qs ...string) {
		b.Helper()
		for _, q := range qs {
			if _, err := db.Exec(q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec(`DROP TABLE IF EXISTS writeamp_decbench`, `CREATE TABLE writeamp_decbench (id int PRIMARY KEY, v text, k int)`, `CREATE INDEX ON writeamp_decbench (k)`)
	defer exec(`DROP TABLE IF EXISTS writeamp_decbench`)
	// A long window's WAL must outlive the checkpoints during it.
	exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'writeamp_decbench'`,
		`SELECT pg_create_physical_replication_slot('writeamp_decbench', true)`)
	defer exec(`SELECT pg_drop_replication_slot('writeamp_decbench')`)
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	if !s.Has(pg.CapWALFiles) || s.Prop(pg.PropDataDirectory) == "" {
		b.Skip("the login may not read the WAL segments, or not locally")
	}
	set := NewSet()
	sc := collectors.Scope{Tables: []string{"writeamp_decbench"}}
	before, err := set.Take(ctx, db, s, sc)
	if err != nil {
		b.Fatal(err)
	}
	exec(fmt.Sprintf(`INSERT INTO writeamp_decbench SELECT g, md5(g::text), g %% 1000 FROM generate_series(1, %d) g`, rows),
		`UPDATE writeamp_decbench SET v = v || 'x' WHERE id % 3 = 0`)
	after, err := set.Take(ctx, db, s, sc)
	if err != nil {
		b.Fatal(err)
	}
	w := walWindow{start: before.Marks[MarkLSN], end: after.Marks[MarkLSN], rels: relMap(before, after)}
	w.dboid, _ = strconv.ParseInt(s.Prop(pg.PropDatabaseOID), 10, 64)
	for i := 0; i < 50; i++ {
		var ahead int64
		queries.QueryRow(ctx, db, pg.Name, "flush_lsn", s.VersionNum, w.end).Scan(&ahead)
		if ahead >= 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	lo, _ := parseLSN(w.start)
	hi, _ := parseLSN(w.end)
	remote := s
	remote.Props = map[string]string{}
	for k, v := range s.Props {
		remote.Props[k] = v
	}
	remote.SetProp(pg.PropDataDirectory, "")
	// pg_waldump on the same range, the bench's peer, when it is here.
	if waldump, err := osexec.LookPath(fmt.Sprintf("/usr/lib/postgresql/%d/bin/pg_waldump", s.VersionNum/10000)); err == nil {
		b.Run("pg_waldump", func(b *testing.B) {
			b.SetBytes(int64(hi - lo))
			for b.Loop() {
				if out, err := osexec.Command(waldump, "--stats=record", "-p", filepath.Join(s.Prop(pg.PropDataDirectory), "pg_wal"), "-s", w.start, "-e", w.end).CombinedOutput(); err != nil {
					b.Fatalf("pg_waldump: %v: %s", err, out)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		srv  dialects.Server
	}{{"local", s}, {"remote", remote}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(hi - lo))
			b.ReportAllocs()
			peak := heappeak.Start()
			for b.Loop() {
				// With the pool in ctx, as RunInterval gives it: the remote
				// read's second connection comes from it (without, this
				// measured one connection, not what writeamp does).
				if _, _, _, err := decodeWindow(collectors.WithPool(ctx, db), db, c.srv, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak.Stop().Peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
