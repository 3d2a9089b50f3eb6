package sqlserver

import (
	"regexp"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var perfCols = []string{"object_name", "counter_name", "instance_name", "cntr_value"}

// nchar128 is a value as sys.dm_os_performance_counters returns it: its
// three name columns are nchar(128), blank-padded to 128 characters.
func nchar128(s string) string { return s + strings.Repeat(" ", 128-len(s)) }

func perfRows(rows ...[4]any) *sqlmock.Rows {
	r := sqlmock.NewRows(perfCols)
	for _, x := range rows {
		r.AddRow(nchar128(x[0].(string)), nchar128(x[1].(string)), nchar128(x[2].(string)), x[3])
	}
	return r
}

const azureGUID = "2F6C5A1E-0B5E-4E0A-9C7E-1A2B3C4D5E6F"

func TestPerformanceCountersPerVersion(t *testing.T) {
	older, newer := server(ms.Version2017+3456), server(ms.Version2019+4375)
	if text(t, "sys_dm_os_performance_counters", older) == text(t, "sys_dm_os_performance_counters", newer) {
		t.Fatal("2017 and 2019 should get different query variants")
	}
	if !strings.Contains(text(t, "sys_dm_os_performance_counters", newer), "physical_database_name") ||
		strings.Contains(text(t, "sys_dm_os_performance_counters", older), "physical_database_name") {
		t.Fatal("only 2019+ (and Azure) may reference sys.databases.physical_database_name")
	}
	for _, s := range []struct {
		srv  string
		vn   int
		inst string
	}{{"2017", older.VersionNum, "kc"}, {"2019", newer.VersionNum, "kc"}, {"azure", ms.AzureVersionNum, azureGUID + "_1"}} {
		t.Run(s.srv, func(t *testing.T) {
			db, mock := mocksql.New(t)
			srv := server(s.vn)
			mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", srv)).WillReturnRows(perfRows(
				[4]any{"SQLServer:Databases", "Log Bytes Flushed/sec", s.inst, 66584000},
				[4]any{"SQLServer:Databases", "Log Flushes/sec", s.inst, 16500},
				[4]any{"SQLServer:Access Methods", "Page Splits/sec", "", 812}))
			cs, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, srv, collectors.Scope{})
			if err != nil {
				t.Fatal(err)
			}
			if c := find(t, cs, collectors.DB, "", "log_bytes_flushed"); c.Value != 66584000 || c.Exactness != result.Exact || strings.HasSuffix(c.Source, " ") {
				t.Errorf("log_bytes_flushed = %+v", c)
			}
			if c := find(t, cs, collectors.DB, "", "log_flushes"); c.Value != 16500 {
				t.Errorf("log_flushes = %v", c.Value)
			}
			ps := find(t, cs, collectors.DB, "", "page_splits")
			if ps.Value != 812 || ps.Exactness != result.Approx || !strings.Contains(ps.Source, "whole instance") {
				t.Errorf("page_splits = %+v", ps)
			}
		})
	}
}

// TestPerformanceCountersWhereMatchesPaddedNames evaluates each LIKE of the
// queries the way SQL Server does on nchar(128): a Unicode LIKE keeps the
// trailing blanks of the value, so the pattern must meet RTRIM(column) or it
// matches no row of a real server.
// https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql
func TestPerformanceCountersWhereMatchesPaddedNames(t *testing.T) {
	like := regexp.MustCompile(`(RTRIM\((\w+)\)|(\w+))\s+LIKE\s+N'([^']*)'`)
	for _, vn := range []int{ms.Version2017, ms.Version2019, ms.AzureVersionNum} {
		q := text(t, "sys_dm_os_performance_counters", server(vn))
		preds := like.FindAllStringSubmatch(q, -1)
		if len(preds) < 2 {
			t.Fatalf("%d: expected the object_name LIKE predicates, got %q", vn, preds)
		}
		for _, p := range preds {
			col, trimmed := p[3], false
			if p[2] != "" {
				col, trimmed = p[2], true
			}
			if col != "object_name" {
				continue
			}
			want := "SQLServer:Databases"
			if strings.Contains(p[4], "Access") {
				want = "SQLServer:Access Methods"
			}
			value := nchar128(want)
			if trimmed {
				value = strings.TrimRight(value, " ")
			}
			if !unicodeLike(value, p[4]) {
				t.Errorf("%d: %s matches no row of a real server (object_name is nchar(128), %q padded)", vn, p[0], want)
			}
		}
	}
	if q := text(t, "sys_dm_os_performance_counters", server(ms.AzureVersionNum)); !strings.Contains(q, "RTRIM(instance_name) LIKE (SELECT physical_database_name") {
		t.Error("Azure SQL Database's instance_name may carry a suffix after the GUID: it must be matched by prefix")
	}
}

// unicodeLike is LIKE on Unicode data under a case-insensitive collation:
// % any run, _ one character, [..] a set; trailing blanks count.
func unicodeLike(value, pattern string) bool {
	var re strings.Builder
	re.WriteString("(?is)^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		case '[':
			j := strings.IndexByte(pattern[i:], ']')
			re.WriteString(pattern[i : i+j+1])
			i += j
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String()).MatchString(value)
}

func TestUnicodeLikeKeepsTrailingBlanks(t *testing.T) {
	if unicodeLike(nchar128("SQLServer:Databases"), "%:Databases") || !unicodeLike("SQLServer:Databases", "%:databases") ||
		!unicodeLike(nchar128("SQLServer:Databases"), "%:Databases%") {
		t.Fatal("unicodeLike does not model SQL Server's Unicode LIKE")
	}
}

// TestPerformanceCountersPicksThisDatabase: an exact DB_NAME() row wins; on
// Azure SQL Database one GUID-prefixed row is this database, several are
// summed and say so.
func TestPerformanceCountersPicksThisDatabase(t *testing.T) {
	collect := func(rows ...[4]any) []collectors.Counter {
		db, mock := mocksql.New(t)
		s := server(ms.AzureVersionNum)
		mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", s)).WillReturnRows(perfRows(rows...))
		cs, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	cs := collect([4]any{"MSSQL$KC:Databases", "Log Flushes/sec", azureGUID, 7}, [4]any{"MSSQL$KC:Databases", "Log Flushes/sec", "kc", 9})
	if c := find(t, cs, collectors.DB, "", "log_flushes"); c.Value != 9 || c.Exactness != result.Exact {
		t.Errorf("the DB_NAME() row must win: %+v", c)
	}
	cs = collect([4]any{"SQLServer:Databases", "Log Flushes/sec", azureGUID + "_1", 5}, [4]any{"SQLServer:Databases", "Log Flushes/sec", azureGUID + "_2", 6})
	if c := find(t, cs, collectors.DB, "", "log_flushes"); c.Value != 11 || c.Exactness != result.Approx || !strings.Contains(c.Note, azureGUID+"_2") {
		t.Errorf("two suffixed rows: %+v", c)
	}
}

func TestPerformanceCountersResetAndPermission(t *testing.T) {
	s := server(ms.Version2019)
	read := func(v int64) []collectors.Counter {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", s)).WillReturnRows(perfRows(
			[4]any{"MSSQL$KC:Databases", "Log Flushes/sec", "kc", v}))
		cs, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.DB, Metric: "log_flushes"}
	d, _ := collectors.Diff(snap(s, read(900)), snap(s, read(1000)))
	if m := d.Values[k]; m.V() != 100 {
		t.Errorf("delta = %v", m.V())
	}
	d, _ = collectors.Diff(snap(s, read(900)), snap(s, read(10)))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Errorf("a lower value is a reset, got %+v", m)
	}

	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", s)).WillReturnError(permissionDenied300)
	_, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "VIEW SERVER STATE", "GRANT VIEW SERVER STATE TO [wa_login]")
}

// TestPerformanceCountersOnAzureBasicNeedTheAdmin: on Basic, S0, S1 and in
// elastic pools VIEW DATABASE STATE is refused (error 297/300); the fix named
// must be one that works there.
func TestPerformanceCountersOnAzureBasicNeedTheAdmin(t *testing.T) {
	s := azure()
	s.SetProp(ms.PropServiceObjective, "S0")
	db, mock := mocksql.New(t)
	mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", s)).WillReturnError(permissionDenied297)
	_, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "the server admin or Microsoft Entra admin, or membership in ##MS_ServerStateReader## (service objective S0)",
		"ALTER SERVER ROLE ##MS_ServerStateReader## ADD MEMBER [wa_login]")
	s.Set(ms.CapInstanceDMVs, false, "no")
	if err := (SysDmOsPerformanceCounters{}).Supports(s); err == nil || strings.Contains(err.Error(), "GRANT VIEW DATABASE") {
		t.Fatalf("Supports on S0 = %v", err)
	}
}
