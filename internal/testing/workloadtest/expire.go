package workloadtest

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// The expiration job's statements and a sqlmock run of it.

// expireArgs are the arguments the expiration job passes to each of its
// statements; the deletes' IN lists are expanded for a batch of three.
var expireArgs = map[string]int{"rt_expire_find_last_refresh": 4, "rt_expire_find_created_on": 4,
	"rt_expire_find_last_refresh_coarse": 6, "rt_expire_find_created_on_coarse": 5, "rt_expire_find_last_refresh_coarse_all": 5,
	"rt_expire_delete_client_sessions": 4, "rt_expire_delete_user_sessions": 4}

// CheckExpirePlaceholders: each expiration-job statement, its IN list
// expanded, binds exactly parameters 1..N for the N arguments the job passes.
func (h Harness) CheckExpirePlaceholders(t *testing.T, vn int) {
	for _, name := range refreshtoken.ExpireStatementNames {
		n, ok := expireArgs[name]
		if !ok {
			t.Errorf("the job uses %s, expireArgs does not know it", name)
			continue
		}
		text := refreshtoken.ExpandIn(h.SQL(t, name, vn, "coarse"), h.Dialect, 3)
		var seq, want []string
		for _, m := range h.Placeholder.FindAllStringSubmatch(text, -1) {
			seq = append(seq, m[1])
		}
		for i := 1; i <= n; i++ {
			want = append(want, fmt.Sprint(i))
		}
		if strings.Join(seq, ",") != strings.Join(want, ",") {
			t.Errorf("%s binds parameters %v, the job passes %d in order:\n%s", name, seq, n, text)
		}
	}
}

// MockJob runs the expiration job after one login and two refreshes that do
// not log out against a mock that accepts exactly this dialect's job
// statements, with the job's arguments: two job runs find nothing, the third
// (2,700 s, past the last refresh + max idle + 180 s) finds the session and
// deletes its client session and itself. The coarse variant has one bucket.
func (h Harness) MockJob(t *testing.T, vn int) {
	srv := dialects.Server{Dialect: h.Dialect, VersionNum: vn}
	d, _ := dialects.Get(h.Dialect)
	for _, variant := range refreshtoken.Variants {
		t.Run(variant, func(t *testing.T) {
			db, mock := mocksql.New(t)
			p := MockParams()
			p.LogoutPercent, p.Buckets = 0, 1
			w := refreshtoken.New(p)
			w.Owned.RunID = RunID
			target := dialects.Target{DB: db, Dialect: d, Server: srv}
			h.ExpectPrepare(t, mock, vn, variant)
			if err := w.Prepare(context.Background(), target, variant); err != nil {
				t.Fatal(err)
			}
			sql := func(name string) string { return h.SQL(t, name, vn, variant) }
			anyArg := sqlmock.AnyArg()
			realm := "b2a3c4d5-0000-4000-8000-00000000beef"
			id := w.PlanSessionID(0)
			none := func() *sqlmock.Rows { return sqlmock.NewRows([]string{"user_session_id", "user_id"}) }
			for k := int64(1); k <= 3; k++ {
				now := refreshtoken.Epoch + 900*k
				cutLast, cutCreated := now-1800-180, now-36000-180
				lr, co := sql("rt_expire_find_last_refresh"), sql("rt_expire_find_created_on")
				lrArgs := []driver.Value{realm, anyArg, cutLast, int64(512)}
				coArgs := []driver.Value{realm, anyArg, cutCreated, int64(512)}
				if variant == "coarse" {
					lr, co = sql("rt_expire_find_last_refresh_coarse"), sql("rt_expire_find_created_on_coarse")
					lrArgs = []driver.Value{realm, anyArg, int64(0), cutLast, cutLast, int64(512)}
					coArgs = []driver.Value{realm, anyArg, int64(0), cutCreated, int64(512)}
				}
				mock.ExpectBegin()
				if k < 3 {
					mock.ExpectQuery(lr).WithArgs(lrArgs...).WillReturnRows(none())
				} else {
					mock.ExpectQuery(lr).WithArgs(lrArgs...).WillReturnRows(none().AddRow(id, "user-0"))
					mock.ExpectExec(refreshtoken.ExpandIn(sql("rt_expire_delete_client_sessions"), h.Dialect, 1)).WithArgs(id, "0").WillReturnResult(sqlmock.NewResult(0, 1))
					mock.ExpectExec(refreshtoken.ExpandIn(sql("rt_expire_delete_user_sessions"), h.Dialect, 1)).WithArgs("0", id).WillReturnResult(sqlmock.NewResult(0, 1))
				}
				mock.ExpectCommit()
				mock.ExpectBegin()
				mock.ExpectQuery(co).WithArgs(coArgs...).WillReturnRows(none())
				mock.ExpectCommit()
			}
			ep, err := w.Epilogue()
			if err != nil {
				t.Fatal(err)
			}
			st, err := workloads.Runner{Target: target, Concurrency: 1}.Run(context.Background(), ep.Ops)
			if err != nil || st.Statements["rt_expire_delete_user_sessions"] != 1 {
				t.Fatalf("job: %v %v", err, st.Statements)
			}
			h.ExpectCleanup(t, mock, vn, variant)
			if err := w.Cleanup(context.Background(), target); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// MockJobDeletesWhatTheFindReturned: the job's deletes bind the ids its find
// returned, and a find returning a session the model does not have expiring
// fails the batch before anything is deleted. Two sessions expire together
// with a batch of one: the model picks session 0 first, the mock's find
// returns session 1, and the deletes must name session 1 (then session 0).
// Then the same job whose find returns an id of no live session: rolled
// back, and the run fails saying which id.
func (h Harness) MockJobDeletesWhatTheFindReturned(t *testing.T, vn int) {
	srv := dialects.Server{Dialect: h.Dialect, VersionNum: vn}
	d, _ := dialects.Get(h.Dialect)
	for _, foreign := range []bool{false, true} {
		t.Run(fmt.Sprintf("foreign=%v", foreign), func(t *testing.T) {
			db, mock := mocksql.New(t)
			p := MockParams()
			p.Logins, p.LogoutPercent, p.ExpirationBatch = 2, 0, 1
			w := refreshtoken.New(p)
			w.Owned.RunID = RunID
			target := dialects.Target{DB: db, Dialect: d, Server: srv}
			h.ExpectPrepare(t, mock, vn, "baseline")
			if err := w.Prepare(context.Background(), target, "baseline"); err != nil {
				t.Fatal(err)
			}
			sql := func(name string) string { return h.SQL(t, name, vn, "baseline") }
			rows := func(ids ...string) *sqlmock.Rows {
				r := sqlmock.NewRows([]string{"user_session_id", "user_id"})
				for _, id := range ids {
					r.AddRow(id, nil)
				}
				return r
			}
			lr, co := sql("rt_expire_find_last_refresh"), sql("rt_expire_find_created_on")
			dc := refreshtoken.ExpandIn(sql("rt_expire_delete_client_sessions"), h.Dialect, 1)
			du := refreshtoken.ExpandIn(sql("rt_expire_delete_user_sessions"), h.Dialect, 1)
			for k := 1; k <= 2; k++ { // nothing has expired yet
				mock.ExpectBegin()
				mock.ExpectQuery(lr).WillReturnRows(rows())
				mock.ExpectCommit()
				mock.ExpectBegin()
				mock.ExpectQuery(co).WillReturnRows(rows())
				mock.ExpectCommit()
			}
			id0, id1 := w.PlanSessionID(0), w.PlanSessionID(1)
			if foreign {
				mock.ExpectBegin()
				mock.ExpectQuery(lr).WillReturnRows(rows("00000000-not-a-live-session"))
				mock.ExpectRollback()
			} else {
				for _, id := range []string{id1, id0} {
					mock.ExpectBegin()
					mock.ExpectQuery(lr).WillReturnRows(rows(id))
					mock.ExpectExec(dc).WithArgs(id, "0").WillReturnResult(sqlmock.NewResult(0, 1))
					mock.ExpectExec(du).WithArgs("0", id).WillReturnResult(sqlmock.NewResult(0, 1))
					mock.ExpectCommit()
				}
				mock.ExpectBegin()
				mock.ExpectQuery(lr).WillReturnRows(rows())
				mock.ExpectCommit()
				mock.ExpectBegin()
				mock.ExpectQuery(co).WillReturnRows(rows())
				mock.ExpectCommit()
			}
			ep, err := w.Epilogue()
			if err != nil {
				t.Fatal(err)
			}
			st, err := workloads.Runner{Target: target, Concurrency: 1, MaxErrors: 1}.Run(context.Background(), ep.Ops)
			switch {
			case foreign && (err == nil || !strings.Contains(err.Error(), "not-a-live-session")):
				t.Fatalf("a find returning another session: %v", err)
			case foreign && st.Statements["rt_expire_delete_user_sessions"] != 0:
				t.Fatalf("deleted after a foreign id: %v", st.Statements)
			case !foreign && (err != nil || st.Statements["rt_expire_delete_user_sessions"] != 2):
				t.Fatalf("job: %v %v", err, st.Statements)
			}
			h.ExpectCleanup(t, mock, vn, "baseline")
			if err := w.Cleanup(context.Background(), target); err != nil {
				t.Fatal(err)
			}
		})
	}
}
