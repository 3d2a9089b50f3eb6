package measure_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/writeamp/writeamp/collectors/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// PR #51904 measured, for keycloak-benchmark's AuthorizationCode scenario,
// 15,020 IDX_USER_SESSION_EXPIRATION_LAST_REFRESH leaf inserts for 1,502
// logins before and 1,502 after: exactly 10 per login, then 1. The default
// scenario (fewer logins, for time; every other knob at its default) must
// give those ratios exactly. Baseline: the login's INSERT plus nine refreshes
// that move LAST_SESSION_REFRESH (the first refresh shares the login's
// second); coarse: only the INSERT.
const prLogins = 300

func prParams() refreshtoken.Params {
	p := refreshtoken.DefaultParams()
	p.Logins = prLogins
	return p
}

// pageMoves is how many coarse updates found their page full: each adds one
// entry to every index (PostgreSQL only), which the ratio then carries.
func checkPRRatio(t *testing.T, res *result.Result, exactness result.Exactness, source string, pageMoves int64) {
	t.Helper()
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	if len(res.Workload.Assumptions) == 0 || res.Workload.Params["first_refresh_after"] != "0s" {
		t.Errorf("the result must state the modelling assumptions and their parameters: %v %v", res.Workload.Assumptions, res.Workload.Params)
	}
	for _, run := range res.Runs {
		logins, refreshes := run.Operations["logins"], run.Operations["refreshes"]
		if logins != prLogins || refreshes != 10*prLogins || len(run.Errors) > 0 {
			t.Fatalf("%s: operations %v, errors %v", run.Variant, run.Operations, run.Errors)
		}
		want := map[string]int64{"baseline": 10 * logins, "coarse": logins + pageMoves}[run.Variant]
		li := metric(t, run.Index("idx_user_session_expiration_last_refresh"), "leaf_inserts")
		if li.V() != float64(want) || li.Exactness != exactness || !strings.Contains(li.Source, source) {
			t.Errorf("%s: idx_user_session_expiration_last_refresh leaf inserts %v (%s, %s), want exactly %d (%d per login, %s)",
				run.Variant, li.V(), li.Exactness, li.Source, want, want/logins, exactness)
		}
		if upd := metric(t, run.Table("offline_user_session"), "rows_updated").V(); upd != float64(9*logins) {
			t.Errorf("%s: %v user-session updates, want 9 per login", run.Variant, upd)
		}
	}
}

func TestDefaultScenarioGivesThePRsRatioOnPostgres(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	// One transaction at a time, as the reference scenario loads the
	// database, every coarse update is HOT. Another transaction's snapshot
	// (an autoanalyze of the catalogs the previous tests churned) can hold
	// back pruning, and an update then finds its page full: that run is
	// repeated after the autovacuum workers went quiet, at most twice, and
	// only when every non-HOT update was such a page move. If the third
	// run still had page moves, the exact count is judged with them: every
	// non-HOT update must be one, and each adds one expiration-index entry.
	var res *result.Result
	var pageMoves int64
	for attempt := 1; ; attempt++ {
		waitForAutovacuum(t, db)
		var err error
		res, err = (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(prParams()), Variants: refreshtoken.Variants}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		us := res.Runs[1].Table("offline_user_session")
		hot, upd, moved := metric(t, us, "hot_updates").V(), metric(t, us, "rows_updated").V(), metric(t, us, "newpage_updates").V()
		if hot == upd || attempt == 3 || moved != upd-hot {
			if moved != upd-hot {
				t.Errorf("coarse: %v of %v updates HOT but only %v moved to another page: a non-HOT update the page's room does not explain", hot, upd, moved)
			}
			pageMoves = int64(upd - hot)
			break
		}
		t.Logf("attempt %d: %v coarse updates found their page full (pruning held back by another transaction); again", attempt, moved)
	}
	checkPRRatio(t, res, result.Exact, "WAL decoder", pageMoves)
}

// waitForAutovacuum waits (a minute at most) until no autovacuum worker runs.
func waitForAutovacuum(t *testing.T, db *sql.DB) {
	t.Helper()
	for i := 0; i < 120; i++ {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func TestDefaultScenarioGivesThePRsRatioOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(prParams()), Variants: refreshtoken.Variants}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkPRRatio(t, res, result.Derived, "derived: InnoDB rules", 0)
}
