package sqlserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var started = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// server is SQL Server at vn with every permission the probe can find.
func server(vn int) dialects.Server {
	s := dialects.Server{Dialect: ms.Name, Version: "16.0.4135.4", VersionNum: vn, Database: "kc", User: "wa", StartedAt: started, Identity: "srv/kc"}
	s.SetProp(ms.PropLogin, "wa_login")
	s.Set(ms.CapViewDatabaseState, true, "")
	s.Set(ms.CapViewServerState, true, "")
	s.Set(ms.CapInstanceDMVs, true, "")
	s.Set(ms.CapViewDatabaseStateFull, true, "")
	s.Set(ms.CapFnDblog, true, "")
	s.Set(ms.CapDatabaseWaitStats, false, "not Azure")
	return s
}

func azure() dialects.Server {
	s := server(ms.AzureVersionNum)
	s.Flavor = ms.FlavorAzureSQLDatabase
	s.Set(ms.CapDatabaseWaitStats, true, "")
	s.Set(ms.CapFnDblog, false, "Azure SQL Database has no sysadmin")
	return s
}

func text(t testing.TB, name string, s dialects.Server) string {
	return mocksql.SQL(t, ms.Name, name, s.VersionNum)
}

func find(t *testing.T, cs []collectors.Counter, level collectors.Level, obj, metric string) collectors.Counter {
	t.Helper()
	for _, c := range cs {
		if c.Level == level && c.Object == obj && c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no counter %s:%s:%s in %d counters", level, obj, metric, len(cs))
	return collectors.Counter{}
}

func absent(t *testing.T, cs []collectors.Counter, obj string) {
	t.Helper()
	for _, c := range cs {
		if c.Object == obj {
			t.Fatalf("counter for %s should have been filtered out: %+v", obj, c)
		}
	}
}

func snap(s dialects.Server, cs []collectors.Counter) *collectors.Snapshot {
	return &collectors.Snapshot{Server: s, Counters: cs}
}

var permissionDenied300 = mssql.Error{Number: 300, Class: 14, Message: "VIEW SERVER STATE permission was denied on object 'server', database 'master'."}
var permissionDenied297 = mssql.Error{Number: 297, Class: 16, Message: "The user does not have permission to perform this action."}

func wantPrivilege(t *testing.T, err error, privilege, grant string) {
	t.Helper()
	var pe *dialects.PrivilegeError
	if !errors.As(err, &pe) {
		t.Fatalf("want *dialects.PrivilegeError, got %T %v", err, err)
	}
	if pe.Privilege != privilege {
		t.Errorf("privilege = %q, want %q", pe.Privilege, privilege)
	}
	if !strings.Contains(pe.Grant, grant) {
		t.Errorf("grant = %q, want it to contain %q", pe.Grant, grant)
	}
}

func wantUnsupported(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, dialects.ErrUnsupported) {
		t.Fatalf("want ErrUnsupported, got %v", err)
	}
}

var sql2014 = dialects.Server{Dialect: ms.Name, Version: "12.0.6024.0", VersionNum: 1206024}

func ctx() context.Context { return context.Background() }

func TestEveryCollectorRefusesSQLServer2014(t *testing.T) {
	for _, c := range NewSet().Sources {
		switch c.(type) {
		case FnDblogMark, SysDmHadrDatabaseReplicaStates, SysDmDbResourceStatsMark:
			continue // a mark only: its interval collector reports the support
		}
		wantUnsupported(t, c.Supports(sql2014))
	}
	for _, ic := range NewSet().Interval {
		wantUnsupported(t, ic.Supports(sql2014))
	}
}

func TestRegisteredForTheDialect(t *testing.T) {
	set, err := collectors.For(ms.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Sources) != 9 || len(set.Interval) != 3 || set.SnapshotTx == nil {
		t.Fatalf("unexpected set: %d collectors, %d interval", len(set.Sources), len(set.Interval))
	}
	if set.Savepoint != "" {
		t.Fatalf("SQL Server needs no savepoints, got %q", set.Savepoint)
	}
}
