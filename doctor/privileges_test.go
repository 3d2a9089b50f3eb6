package doctor

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
)

// pageRow is how a Need appears in docs/privileges.md's tables ("*"
// escaped: "ON *.*" would be emphasis in Markdown).
func pageRow(n Need) string {
	without := n.Without
	if without == "" {
		without = "—"
	}
	esc := strings.NewReplacer("*", `\*`, "|", `\|`).Replace
	return fmt.Sprintf("| %s | %s | %s |", esc(n.Numbers), esc(n.Privilege), esc(without))
}

// TestPrivilegesPageListsWhatEachNumberNeeds: docs/privileges.md's
// per-dialect tables are these rows, word for word; a changed requirement
// fails here until the page says it too.
func TestPrivilegesPageListsWhatEachNumberNeeds(t *testing.T) {
	data, err := os.ReadFile("../docs/privileges.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for dialect, title := range map[string]string{"postgres": "PostgreSQL", "mysql": "MariaDB / MySQL", "sqlserver": "SQL Server", "oracle": "Oracle"} {
		head := "#### " + title + ": what each number needs"
		i := strings.Index(page, head)
		if i < 0 {
			t.Errorf("docs/privileges.md has no %q section", head)
			continue
		}
		section := page[i:]
		if j := strings.Index(section[len(head):], "\n#"); j >= 0 {
			section = section[:len(head)+j]
		}
		for _, n := range Needs[dialect] {
			if row := pageRow(n); !strings.Contains(section, row) {
				t.Errorf("docs/privileges.md %s lacks the row\n%s", title, row)
			}
		}
	}
}

// TestDoctorSaysWhatNeedsSysadminOnSQLServer holds item 4 of issue 12: a
// login without sysadmin is told that per-index log bytes (sys.fn_dblog)
// need it, and what stays without it; on Azure SQL Database S0 the instance
// counters name the admin or ##MS_ServerStateReader##, not a GRANT that fails.
func TestDoctorSaysWhatNeedsSysadminOnSQLServer(t *testing.T) {
	s := dialects.Server{Dialect: ms.Name, Version: "16.0.4135.4", VersionNum: ms.Version2022 + 4135, Database: "kc", User: "wa"}
	s.SetProp(ms.PropLogin, "wa_login")
	s.Set(ms.CapViewDatabaseState, true, "")
	s.Set(ms.CapViewServerState, true, "")
	s.Set(ms.CapInstanceDMVs, true, "")
	s.Set(ms.CapCheckpoint, false, "CHECKPOINT needs sysadmin, db_owner or db_backupoperator")
	s.Set(ms.CapFnDblog, false, "per-index log bytes read sys.fn_dblog, which needs sysadmin")
	r := &Report{Server: s, Needs: needStatus(s, map[string]string{})}
	var buf bytes.Buffer
	if err := Render(&buf, "table", r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"what each number needs (in SQL Server's own terms)",
		"MISSING    log bytes per index (sys.fn_dblog)", "needs:   sysadmin",
		"without: no log bytes per index; the database's log bytes (sys.dm_io_virtual_file_stats) and the per-index leaf writes (sys.dm_db_index_operational_stats) need no sysadmin and stay",
		"MISSING    CHECKPOINT before each window", "needs:   sysadmin, db_owner or db_backupoperator",
		"available  per-index leaf inserts/deletes/updates", "needs:   VIEW DATABASE PERFORMANCE STATE",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sys.dm_db_wait_stats") {
		t.Error("a boxed server is told about Azure's sys.dm_db_wait_stats")
	}

	az := s
	az.Flavor, az.VersionNum, az.Caps, az.Reasons = ms.FlavorAzureSQLDatabase, ms.AzureVersionNum, nil, nil
	az.SetProp(ms.PropServiceObjective, "S0")
	az.Set(ms.CapInstanceDMVs, false, "no")
	az.Set(ms.CapViewDatabaseStateFull, true, "")
	var perf NeedStatus
	for _, n := range needStatus(az, map[string]string{}) {
		if strings.Contains(n.Numbers, "sys.dm_os_performance_counters") {
			perf = n
		}
	}
	if perf.Status != "missing" || !strings.Contains(perf.Privilege, "##MS_ServerStateReader##") || strings.Contains(perf.Privilege, "VIEW DATABASE STATE") {
		t.Errorf("Azure S0 performance counters: %+v", perf)
	}
}
