package sqlserver_test

import (
	"regexp"
	"strings"
	"testing"

	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/workloadtest"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

var h = workloadtest.Harness{Dialect: ms.Name, Title: "SQL Server", Placeholder: regexp.MustCompile(`@p(\d+)\b`), RememberMe: false}

func TestWorkloadGolden(t *testing.T) {
	h.Golden(t, map[string]int{"refresh_token_2017": ms.Version2017 + 3456, "refresh_token_2019": ms.Version2019 + 4375})
}

// TestPlaceholdersMatchTheWorkloadsArguments: each statement binds exactly
// parameters 1..N for the N arguments refreshtoken passes.
func TestPlaceholdersMatchTheWorkloadsArguments(t *testing.T) {
	h.CheckPlaceholders(t, ms.Version2019+4375)
}

// TestWorkloadDrivesTheseStatements runs refreshtoken's Prepare, one login,
// refresh and logout, and Cleanup against a mock that accepts exactly this
// dialect's statements in order.
func TestWorkloadDrivesTheseStatements(t *testing.T) { h.MockRun(t, ms.Version2019+4375) }

// TestLeftoversAreJudgedByTheirLock: a schema whose lock is free is dropped,
// one in use, kept, unlocked (older writeamp) or unmarked is not.
func TestLeftoversAreJudgedByTheirLock(t *testing.T) { h.MockSurvey(t, ms.Version2019+4375) }

func TestCoarseExpirationIndexesOptimizeForSequentialKeyOn2019(t *testing.T) {
	count := func(vn int) int {
		return strings.Count(h.SQL(t, "rt_ddl_coarse", vn, "coarse"), "WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)")
	}
	if count(ms.Version2017) != 0 || count(ms.Version2019) != 2 || count(ms.AzureVersionNum) != 2 {
		t.Fatalf("OPTIMIZE_FOR_SEQUENTIAL_KEY: 2017 %d, 2019 %d, Azure %d", count(ms.Version2017), count(ms.Version2019), count(ms.AzureVersionNum))
	}
	if strings.Contains(h.SQL(t, "rt_ddl_baseline", ms.Version2022, "baseline"), "OPTIMIZE_FOR_SEQUENTIAL_KEY") {
		t.Fatal("the baseline (26.7) has no OPTIMIZE_FOR_SEQUENTIAL_KEY")
	}
	coarse := h.SQL(t, "rt_ddl_coarse", ms.Version2019, "coarse")
	for _, want := range []string{"data nvarchar(max)", "remember_me bit", "WHERE broker_session_id IS NOT NULL", "WHERE client_id <> 'external'"} {
		if !strings.Contains(coarse, want) {
			t.Errorf("coarse DDL lacks %q", want)
		}
	}
}

// The 26.8 definitions Keycloak creates on SQL Server (jpa-changelog-26.8.0.xml,
// PR #51858; its DatabaseIndexCheckerTest requires INCLUDE and
// OPTIMIZE_FOR_SEQUENTIAL_KEY here): USER_SESSION_ID and USER_ID leave the key
// for INCLUDE, the broker index is filtered, and the 26.7 definitions keep
// them as trailing keys.
func TestIndexDefinitions(t *testing.T) {
	p := refreshtoken.DefaultParams()
	ids := workloadtest.Index{Include: "user_session_id, user_id"}
	base := h.Indexes(t, ms.Version2019, "baseline", p)
	if ix := base["idx_user_session_expiration_last_refresh"]; ix.Keys != "realm_id, offline_flag, remember_me, last_session_refresh, user_session_id, user_id" || ix.Include != "" {
		t.Errorf("26.7 last-refresh index %+v", ix)
	}
	for _, vn := range []int{ms.Version2017, ms.Version2019} {
		with := map[int]string{ms.Version2017: "", ms.Version2019: "OPTIMIZE_FOR_SEQUENTIAL_KEY = ON"}[vn]
		c := h.Indexes(t, vn, "coarse", p)
		for name, keys := range map[string]string{
			"idx_user_session_expiration_last_refresh": "realm_id, offline_flag, remember_me, session_bucket, last_session_refresh_coarse",
			"idx_user_session_expiration_created":      "realm_id, offline_flag, remember_me, session_bucket, created_on",
		} {
			if ix := c[name]; ix.Keys != keys || ix.Include != ids.Include || ix.With != with {
				t.Errorf("%d: %s %+v", vn, name, ix)
			}
		}
		if c["idx_offline_uss_by_broker_session_id"].Where != "broker_session_id IS NOT NULL" {
			t.Errorf("%d: broker index %+v", vn, c["idx_offline_uss_by_broker_session_id"])
		}
		if _, ok := c["idx_offline_css_by_user_session_and_offline"]; ok {
			t.Errorf("%d: the default 26.8 model drops idx_offline_css_by_user_session_and_offline", vn)
		}
	}
	p.BucketPosition, p.CSSUserSessionIndex = "leading", "keep"
	c := h.Indexes(t, ms.Version2019, "coarse", p)
	if c["idx_user_session_expiration_last_refresh"].Keys != "session_bucket, realm_id, offline_flag, remember_me, last_session_refresh_coarse" || c["idx_offline_css_by_user_session_and_offline"].Keys != "offline_flag, user_session_id" {
		t.Errorf("--bucket-position leading --css-user-session-index keep: %+v", c)
	}
}

// Hibernate's SQLServerDialect: PESSIMISTIC_WRITE is UPDLOCK, HOLDLOCK,
// ROWLOCK; with a lock timeout of -2 (PR #49454's prepare step) UPDLOCK,
// ROWLOCK, READPAST.
func TestLockHints(t *testing.T) {
	for name, hint := range map[string]string{
		"rt_lock_user_session_skip_locked":   "WITH (UPDLOCK, ROWLOCK, READPAST)",
		"rt_lock_client_session_skip_locked": "WITH (UPDLOCK, ROWLOCK, READPAST)",
		"rt_lock_user_session":               "WITH (UPDLOCK, HOLDLOCK, ROWLOCK)",
	} {
		if !strings.Contains(h.SQL(t, name, ms.Version2019, "baseline"), hint) {
			t.Errorf("%s lacks %s", name, hint)
		}
	}
}

// TestExpirationJobPlaceholders: the expiration job's statements bind the
// job's arguments in order, the deletes' IN lists expanded.
func TestExpirationJobPlaceholders(t *testing.T) { h.CheckExpirePlaceholders(t, expireVersion) }

const expireVersion = ms.Version2019 + 4375

// TestExpirationJobDrivesTheseStatements runs the expiration job against a
// mock that accepts exactly this dialect's job statements, in order.
func TestExpirationJobDrivesTheseStatements(t *testing.T) { h.MockJob(t, expireVersion) }

// TestExpirationJobDeletesWhatTheFindReturned: the deletes bind the find's
// ids; an id the model does not expect fails the batch, nothing deleted.
func TestExpirationJobDeletesWhatTheFindReturned(t *testing.T) {
	h.MockJobDeletesWhatTheFindReturned(t, expireVersion)
}
