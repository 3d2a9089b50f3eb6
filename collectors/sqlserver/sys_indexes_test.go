package sqlserver

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

func TestSysIndexesCatalog(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019)
	cols := []string{"schema", "table", "index", "object_id", "index_id", "type_desc", "is_unique", "has_filter", "filter_definition", "columns"}
	mock.ExpectQuery(text(t, "sys_indexes", s)).WillReturnRows(sqlmock.NewRows(cols).
		AddRow(sch, "offline_client_session", "constraint_offl_cl_ses_pk3", 102, 1, "CLUSTERED", true, false, nil, "user_session_id, client_id").
		AddRow(sch, "offline_client_session", "idx_offline_css_by_client", 102, 2, "NONCLUSTERED", false, true, "([client_id]<>'external')", "client_id, offline_flag").
		AddRow(sch, "writeamp_owner", nil, 103, 0, "HEAP", false, false, nil, nil).
		AddRow("dbo", "offline_client_session", "pk", 104, 1, "CLUSTERED", true, false, nil, "id"))
	objs, _, err := SysIndexes{}.Catalog(ctx(), db, s, collectors.Scope{Schemas: []string{"WRITEAMP_RT_1_BASELINE"}, Tables: []string{"Offline_Client_Session"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("want the table and its two indexes, got %+v", objs)
	}
	if objs[0].Level != collectors.Table || objs[0].FQN() != sch+".offline_client_session" || objs[0].ID != "102" {
		t.Errorf("table = %+v", objs[0])
	}
	pk := objs[1]
	if pk.Level != collectors.Index || pk.Table != "offline_client_session" || pk.Info["method"] != "btree" || pk.Info["unique"] != "true" || pk.Info["partial"] != "" {
		t.Errorf("pk = %+v", pk)
	}
	f := objs[2]
	if f.Info["partial"] != "true" || f.Info["predicate"] != "([client_id]<>'external')" {
		t.Errorf("filtered index not marked partial: %+v", f)
	}
	want := "CREATE NONCLUSTERED INDEX idx_offline_css_by_client ON " + sch + ".offline_client_session (client_id, offline_flag) WHERE ([client_id]<>'external')"
	if f.Info["definition"] != want {
		t.Errorf("definition = %q\nwant %q", f.Info["definition"], want)
	}
}

func TestSysIndexesPermission(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019)
	mock.ExpectQuery(text(t, "sys_indexes", s)).WillReturnError(permissionDenied297)
	_, _, err := SysIndexes{}.Catalog(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "VIEW DATABASE STATE", "GRANT VIEW DATABASE STATE")
}
