package oracle_test

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/workloadtest"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var h = workloadtest.Harness{Dialect: ora.Name, Title: "Oracle", Placeholder: regexp.MustCompile(`:(\d+)\b`)}

func TestWorkloadGolden(t *testing.T) {
	h.Update = *update
	h.Golden(t, map[string]int{"refresh_token_19c": 192100, "refresh_token_23ai": 230400})
}

// TestPlaceholdersMatchTheWorkloadsArguments: each statement binds exactly
// parameters 1..N for the N arguments refreshtoken passes.
func TestPlaceholdersMatchTheWorkloadsArguments(t *testing.T) { h.CheckPlaceholders(t, 192100) }

// TestWorkloadDrivesTheseStatements runs refreshtoken's Prepare, one login,
// refresh and logout, and Cleanup against a mock that accepts exactly this
// dialect's statements in order.
func TestWorkloadDrivesTheseStatements(t *testing.T) { h.MockRun(t, 192100) }

// TestLeftoversAreJudgedByTheirLock: a schema whose lock is free is dropped,
// one in use, kept, unlocked (older writeamp) or unmarked is not.
func TestLeftoversAreJudgedByTheirLock(t *testing.T) { h.MockSurvey(t, 192100) }

func TestOracleDDLAsKeycloakCreatesIt(t *testing.T) {
	for _, variant := range refreshtoken.Variants {
		ddl := h.SQL(t, "rt_ddl_"+variant, 192100, variant)
		for _, want := range []string{"data CLOB", "remember_me NUMBER(1)", "VARCHAR2(36)"} {
			if !strings.Contains(ddl, want) {
				t.Errorf("%s DDL lacks %q", variant, want)
			}
		}
		if strings.Contains(ddl, "WHERE") || strings.Contains(ddl, "OPTIMIZE_FOR_SEQUENTIAL_KEY") {
			t.Errorf("%s: Oracle has no filtered indexes", variant)
		}
	}
	if !strings.Contains(h.SQL(t, "rt_create_schema", 192100, "baseline"), "CREATE USER "+workloadtest.Schema("baseline")+" NO AUTHENTICATION") ||
		!strings.Contains(h.SQL(t, "rt_create_schema", 192100, "baseline"), "QUOTA UNLIMITED") {
		t.Error("the schema must be a NO AUTHENTICATION user with a quota")
	}
	if h.SQL(t, "rt_drop_schema", 192100, "baseline") != "DROP USER "+workloadtest.Schema("baseline")+" CASCADE" {
		t.Error("drop")
	}
	// Before 18c there is no NO AUTHENTICATION: no DDL, so Prepare fails before creating anything.
	if _, err := queries.Get(ora.Name, "rt_ddl_baseline", 120200); err == nil {
		t.Error("12.2 must get no workload DDL")
	}
}
