package oracle

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var objCols = []string{"owner", "object_name", "object_type", "table_owner", "table_name", "index_type", "uniqueness", "data_object_id"}

func TestAllObjectsCatalog(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	owners := ownerArg(scope)
	mock.ExpectQuery(text(t, "all_objects", s)).WithArgs(owners, owners).WillReturnRows(sqlmock.NewRows(objCols).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE", nil, nil, nil, nil, 73001).
		AddRow(own, "OFFLINE_CLIENT_SESSION", "TABLE", nil, nil, nil, nil, 73010).
		AddRow(own, "CONSTRAINT_OFFL_US_SES_PK2", "INDEX", own, "OFFLINE_USER_SESSION", "NORMAL", "UNIQUE", 73002).
		AddRow(own, "IDX_BY_BITMAP", "INDEX", own, "OFFLINE_USER_SESSION", "BITMAP", "NONUNIQUE", nil).                // partitioned: no data object
		AddRow(own, "IDX_HIDDEN", "INDEX", nil, nil, nil, nil, 73020).                                                 // table not visible
		AddRow(own, "SYS_IL0000073001C00006$$", "INDEX", own, "OFFLINE_USER_SESSION", "LOB", "UNIQUE", 73030).         // the CLOB's own index
		AddRow("WA", "IDX_ON_OTHER_OWNERS_TABLE", "INDEX", own, "OFFLINE_USER_SESSION", "NORMAL", "NONUNIQUE", 73040)) // an index in the login's schema
	objs, _, err := AllObjects{}.Catalog(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("want the table and its three indexes (no LOB index), got %+v", objs)
	}
	if o := objs[3]; o.FQN() != "WA.IDX_ON_OTHER_OWNERS_TABLE" || o.Table != "OFFLINE_USER_SESSION" {
		t.Errorf("an index is scoped by its table's owner: %+v", o)
	}
	if objs[0].Level != collectors.Table || objs[0].FQN() != own+".OFFLINE_USER_SESSION" || objs[0].ID != "73001" {
		t.Errorf("table = %+v", objs[0])
	}
	pk := objs[1]
	if pk.Level != collectors.Index || pk.Table != "OFFLINE_USER_SESSION" || pk.Info["method"] != "btree" || pk.Info["unique"] != "true" || pk.Info["partial"] != "" {
		t.Errorf("pk = %+v", pk)
	}
	if objs[2].Info["method"] != "bitmap" || objs[2].ID != "" {
		t.Errorf("bitmap index = %+v", objs[2])
	}
}

func TestAllObjectsPermission(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "all_objects", s)).WithArgs("", "").WillReturnError(ora942)
	_, _, err := AllObjects{}.Catalog(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "all_objects")
}
