package oracle_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/workloadtest"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

var h = workloadtest.Harness{Dialect: ora.Name, Title: "Oracle", Placeholder: regexp.MustCompile(`:(\d+)\b`), RememberMe: int64(0)}

func TestWorkloadGolden(t *testing.T) {
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
	if !strings.Contains(h.SQL(t, "owned_create_schema", 192100, "baseline"), "CREATE USER "+workloadtest.Schema("baseline")+" NO AUTHENTICATION") ||
		!strings.Contains(h.SQL(t, "owned_create_schema", 192100, "baseline"), "QUOTA UNLIMITED") {
		t.Error("the schema must be a NO AUTHENTICATION user with a quota")
	}
	if h.SQL(t, "owned_drop_schema", 192100, "baseline") != "DROP USER "+workloadtest.Schema("baseline")+" CASCADE" {
		t.Error("drop")
	}
	// Before 18c there is no NO AUTHENTICATION: no DDL, so Prepare fails before creating anything.
	if _, err := queries.Get(ora.Name, "rt_ddl_baseline", 120200); err == nil {
		t.Error("12.2 must get no workload DDL")
	}
}

// createdObject finds what a DDL statement creates and in whose schema an
// unqualified name lands: Oracle puts it in the connecting user's schema.
var createdObject = regexp.MustCompile(`(?is)^CREATE\s+(?:UNIQUE\s+)?(TABLE|INDEX)\s+(?:(\w+)\.)?(\w+)(?:\s+ON\s+(?:(\w+)\.)?(\w+))?`)

// TestEveryObjectLivesInTheWorkloadSchema holds item 5 of issue 12: an index
// named without a schema lands in the login's schema, where the collectors
// (scoped to the workload's schema) never see it, where its segment needs the
// login's own quota, and where the next run by the same login fails with
// ORA-00955. Two runs by one login must create disjoint (owner, name) sets,
// all in their own schema.
func TestEveryObjectLivesInTheWorkloadSchema(t *testing.T) {
	const login = "WA"
	for _, variant := range refreshtoken.Variants {
		seen := map[string]string{}
		for _, run := range []string{"writeamp_rt_0000aaaa_" + variant, "writeamp_rt_0000bbbb_" + variant} {
			text := strings.ReplaceAll(mocksql.SQL(t, ora.Name, "rt_ddl_"+variant, 192100), "{{schema}}", run)
			for _, st := range refreshtoken.Statements(text) {
				m := createdObject.FindStringSubmatch(st)
				if m == nil {
					t.Fatalf("%s: not a CREATE TABLE/INDEX: %.60s", variant, st)
				}
				owner := strings.ToUpper(m[2])
				if owner == "" {
					owner = login
				}
				if owner != strings.ToUpper(run) {
					t.Errorf("%s: %s %s is created in %s, not in the workload's schema %s", variant, m[1], m[3], owner, run)
				}
				if m[1] == "INDEX" && !strings.EqualFold(m[4], run) {
					t.Errorf("%s: index %s is on %s.%s, not on the workload's table", variant, m[3], m[4], m[5])
				}
				key := owner + "." + strings.ToUpper(m[3])
				if prev, dup := seen[key]; dup {
					t.Errorf("%s: ORA-00955: %s is created by run %s and again by run %s", variant, key, prev, run)
				}
				seen[key] = run
			}
		}
	}
	header := workloadHeader(t)
	for _, want := range []string{"CREATE ANY INDEX", "tablespace quota", "QUOTA UNLIMITED"} {
		if !strings.Contains(header, want) {
			t.Errorf("the privilege list in queries/oracle/refresh_token.sql lacks %q", want)
		}
	}
}

// workloadHeader is the comment block that lists the privileges.
func workloadHeader(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../queries/oracle/refresh_token.sql")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(data), "-- name:")
	return head
}

// Oracle has no INCLUDE and no filtered index: 26.8 keeps USER_SESSION_ID and
// USER_ID as trailing key columns. Every index is created in the workload's
// schema, not in the measuring login's.
func TestIndexDefinitions(t *testing.T) {
	for _, p := range []refreshtoken.Params{refreshtoken.DefaultParams(), func() refreshtoken.Params {
		p := refreshtoken.DefaultParams()
		p.CSSUserSessionIndex = "keep"
		return p
	}()} {
		for _, variant := range refreshtoken.Variants {
			ixs := h.Indexes(t, 192100, variant, p)
			if len(ixs) < 7 {
				t.Fatalf("%s: %d indexes", variant, len(ixs))
			}
			for name, ix := range ixs {
				if ix.Schema != workloadtest.Schema(variant) || ix.Include != "" || ix.Where != "" || ix.With != "" {
					t.Errorf("%s: %s %+v", variant, name, ix)
				}
			}
		}
	}
	c := h.Indexes(t, 192100, "coarse", refreshtoken.DefaultParams())
	if c["idx_user_session_expiration_last_refresh"].Keys != "realm_id, offline_flag, remember_me, session_bucket, last_session_refresh_coarse, user_session_id, user_id" ||
		c["idx_user_session_expiration_created"].Keys != "realm_id, offline_flag, remember_me, session_bucket, created_on, user_session_id, user_id" {
		t.Errorf("26.8 expiration indexes %+v", c)
	}
	if _, ok := c["idx_offline_css_by_user_session_and_offline"]; ok {
		t.Error("the default 26.8 model drops idx_offline_css_by_user_session_and_offline")
	}
	if !strings.HasSuffix(h.SQL(t, "rt_lock_user_session_skip_locked", 192100, "baseline"), "FOR UPDATE SKIP LOCKED") ||
		!strings.HasSuffix(h.SQL(t, "rt_lock_user_session", 192100, "baseline"), "FOR UPDATE") {
		t.Error("Hibernate's OracleDialect locks with FOR UPDATE, SKIP LOCKED for a lock timeout of -2")
	}
}

// TestExpirationJobPlaceholders: the expiration job's statements bind the
// job's arguments in order, the deletes' IN lists expanded.
func TestExpirationJobPlaceholders(t *testing.T) { h.CheckExpirePlaceholders(t, expireVersion) }

const expireVersion = 192100

// TestExpirationJobDrivesTheseStatements runs the expiration job against a
// mock that accepts exactly this dialect's job statements, in order.
func TestExpirationJobDrivesTheseStatements(t *testing.T) { h.MockJob(t, expireVersion) }

// TestExpirationJobDeletesWhatTheFindReturned: the deletes bind the find's
// ids; an id the model does not expect fails the batch, nothing deleted.
func TestExpirationJobDeletesWhatTheFindReturned(t *testing.T) {
	h.MockJobDeletesWhatTheFindReturned(t, expireVersion)
}
