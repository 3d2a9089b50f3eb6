package mysql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	mysqld "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// writesFrom turns a run's statement counts into the Delta's Writes, as the
// orchestrator does.
func writesFrom(st workloads.Stats, eff map[string]workloads.Effect, schema string) []collectors.Write {
	var out []collectors.Write
	for name, rows := range st.Statements {
		e, ok := eff[name]
		if !ok {
			continue
		}
		out = append(out, collectors.Write{Statement: name, Schema: schema, Table: e.Table, Kind: e.Kind, Columns: e.Columns, Rows: rows})
	}
	return out
}

// The refresh-token A/B on the real server, small: the MySQL DDL and
// statements run, and the derived expiration-index leaf inserts are
// logins + updates (baseline: an update changes last_session_refresh, a key
// column; the first refresh of a session shares the login's second and
// updates nothing) and logins (coarse), while the server's own row counts
// match the workload's.
func TestRefreshTokenVariants(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	target := dialects.Target{DB: db, Dialect: mysqld.Dialect{}, Server: s}
	ctx := context.Background()
	const idx = "idx_user_session_expiration_last_refresh"
	for _, variant := range refreshtoken.Variants {
		p := refreshtoken.DefaultParams()
		p.Logins, p.RefreshesPerLogin = 120, 4
		w := refreshtoken.New(p)
		if err := w.Prepare(ctx, target, variant); err != nil {
			t.Fatalf("%s: prepare: %v", variant, err)
		}
		t.Cleanup(func() {
			if err := w.Cleanup(context.Background(), target); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
		var st workloads.Stats
		start := time.Now()
		d := window(t, db, s, w.Scope(), func() []collectors.Write {
			ops, err := w.Ops()
			if err != nil {
				t.Fatal(err)
			}
			st, err = workloads.Runner{Target: target, Concurrency: 4}.Run(ctx, ops)
			if err != nil {
				t.Fatalf("%s: run: %v", variant, err)
			}
			return writesFrom(st, w.Effects(), w.Schema())
		})
		logins, refreshes, logouts := st.Operations["logins"], st.Operations["refreshes"], st.Operations["logouts"]
		updates := st.Statements["rt_update_user_session"] + st.Statements["rt_update_user_session_coarse"]
		if updates != logins*int64(p.RefreshesPerLogin-1) {
			t.Errorf("%s: %d updates, want %d refreshes per login less the one in the login's second", variant, updates, p.RefreshesPerLogin-1)
		}
		lb := dbm(d, "log_bytes")
		li := idxm(d, w.Schema()+"."+idx, "leaf_inserts")
		t.Logf("%s: %d logins, %d refreshes, %d logouts in %s; redo %v B (%.0f per refresh); %s leaf_inserts %v (%s)\n  source: %s\n  note: %s",
			variant, logins, refreshes, logouts, time.Since(start).Round(time.Millisecond), lb.V(), lb.V()/float64(refreshes), idx, li.V(), li.Exactness, li.Source, li.Note)
		want := float64(logins + updates)
		if variant == "coarse" {
			want = float64(logins + st.Statements["rt_update_user_session_coarse"])
			if st.Statements["rt_update_user_session_coarse"] != 0 {
				t.Errorf("a short run crossed a coarse boundary: %d", st.Statements["rt_update_user_session_coarse"])
			}
		}
		if !li.OK() || li.V() != want || li.Exactness != result.Derived || !strings.HasPrefix(li.Source, "derived: InnoDB rules") {
			t.Errorf("%s: %s leaf_inserts %v (%s), want %v", variant, idx, li.V(), li.Exactness, want)
		}
		if !lb.OK() || lb.V() <= 0 {
			t.Errorf("%s: no redo bytes: %+v", variant, lb)
		}
		// The server's own (server-wide) counts agree with the workload's.
		for metric, want := range map[string]int64{
			"rows_inserted": 2 * logins, "rows_updated": 2 * updates, "rows_deleted": 2 * logouts,
		} {
			if got := dbm(d, metric); got.V() != float64(want) {
				t.Errorf("%s: server %s = %v (%s), workload did %d", variant, metric, got.V(), got.Source, want)
			}
		}
	}
}
