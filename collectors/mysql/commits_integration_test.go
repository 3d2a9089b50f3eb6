package mysql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/result"
)

// TestTransactionsCommittedCountsTransactions holds item 10 of issue 12:
// 300 autocommit UPDATEs are 300 transactions and no COMMIT statement;
// transactions_committed must say 300 (+ the explicit commits), never 0,
// and rollbacks must not count. Com_commit is reported as what it is.
func TestTransactionsCommittedCountsTransactions(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"INSERT INTO "+name+".t SELECT seq, 0 FROM seq_1_to_400")
	const autocommit, explicit, rolledBack = 300, 20, 10
	d := window(t, db, s, collectors.Scope{Schemas: []string{name}}, func() []collectors.Write {
		exec(t, db, autocommit, "UPDATE "+name+".t SET v = v + 1 WHERE id = %d")
		for i := 1; i <= explicit+rolledBack; i++ {
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(fmt.Sprintf("UPDATE %s.t SET v = v + 1 WHERE id = %d", name, i)); err != nil {
				t.Fatal(err)
			}
			if i <= explicit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	tc := dbm(d, "transactions_committed")
	t.Logf("transactions_committed = %v (%s: %s)", tc.V(), tc.Exactness, tc.Source)
	// Whole server: InnoDB's own background statistics updates may add one
	// or two; nothing else runs on the test server.
	if !tc.OK() || tc.Exactness != result.Derived || tc.V() < autocommit+explicit || tc.V() > autocommit+explicit+3 {
		t.Errorf("transactions_committed = %+v, want %d (autocommit %d + COMMIT %d; the %d rollbacks not counted)",
			tc, autocommit+explicit, autocommit, explicit, rolledBack)
	}
	cs := dbm(d, "commit_statements")
	if !cs.OK() || cs.V() < explicit || cs.V() > explicit+2 || !strings.Contains(cs.Source, "Com_commit") {
		t.Errorf("commit_statements = %+v, want %d COMMIT statements", cs, explicit)
	}
}

// Without the transaction monitors (a login that may not turn them on) the
// figure is unavailable with the reason, not 0.
func TestTransactionsCommittedUnavailableSaysWhy(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	s.Set(my.CapMonitorAdmin, false, "test: may not")
	s.Deny(my.CapIndexMonitor, my.MonitorReason(s, my.IndexMonitors))
	s.Deny(my.CapTrxMonitor, my.MonitorReason(s, my.TrxMonitors))
	set, _ := collectors.For(my.Name)
	before, err := set.Take(context.Background(), db, s, collectors.Scope{Schemas: []string{"none"}})
	if err != nil {
		t.Fatal(err)
	}
	after, err := set.Take(context.Background(), db, s, collectors.Scope{Schemas: []string{"none"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := collectors.Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	set.RunInterval(context.Background(), db, d)
	tc := dbm(d, "transactions_committed")
	if tc.OK() || !strings.Contains(tc.Note, "trx_rw_commits") || !strings.Contains(tc.Note, "GRANT") {
		t.Errorf("transactions_committed = %+v", tc)
	}
}
