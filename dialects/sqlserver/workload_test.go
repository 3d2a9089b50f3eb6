package sqlserver_test

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/workloadtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var h = workloadtest.Harness{Dialect: ms.Name, Title: "SQL Server", Placeholder: regexp.MustCompile(`@p(\d+)\b`)}

func TestWorkloadGolden(t *testing.T) {
	h.Update = *update
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
