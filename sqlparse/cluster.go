package sqlparse

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// ClusterLevel names what a PostgreSQL statement changes outside the
// database it runs in ("" for anything else): roles, databases, tablespaces
// and the server's configuration belong to the whole cluster, so a copy of
// the database (check --clone) does not contain them, and they would
// change the real server. ALTER DATABASE of the copy's own name is
// cluster-level too: its settings live in the shared catalog, and the
// migration names the original database anyway.
func ClusterLevel(s Statement) string {
	if s.pg == nil {
		return ""
	}
	switch n := s.pg.Node.(type) {
	case *pg.Node_CreateRoleStmt, *pg.Node_AlterRoleStmt, *pg.Node_AlterRoleSetStmt, *pg.Node_DropRoleStmt, *pg.Node_GrantRoleStmt, *pg.Node_ReassignOwnedStmt:
		return "a role (roles belong to the whole server)"
	case *pg.Node_CreatedbStmt, *pg.Node_DropdbStmt, *pg.Node_AlterDatabaseStmt, *pg.Node_AlterDatabaseSetStmt, *pg.Node_AlterDatabaseRefreshCollStmt:
		return "a database's definition or settings (kept in the server's shared catalog)"
	case *pg.Node_AlterSystemStmt:
		return "the server's configuration (ALTER SYSTEM)"
	case *pg.Node_CreateTableSpaceStmt, *pg.Node_DropTableSpaceStmt, *pg.Node_AlterTableSpaceOptionsStmt:
		return "a tablespace (tablespaces belong to the whole server)"
	case *pg.Node_RenameStmt:
		switch n.RenameStmt.RenameType {
		case pg.ObjectType_OBJECT_DATABASE, pg.ObjectType_OBJECT_ROLE, pg.ObjectType_OBJECT_TABLESPACE:
			return "the name of a " + objectWord(n.RenameStmt.RenameType)
		}
	case *pg.Node_AlterOwnerStmt:
		switch n.AlterOwnerStmt.ObjectType {
		case pg.ObjectType_OBJECT_DATABASE, pg.ObjectType_OBJECT_TABLESPACE:
			return "the owner of a " + objectWord(n.AlterOwnerStmt.ObjectType)
		}
	case *pg.Node_CommentStmt:
		switch n.CommentStmt.Objtype {
		case pg.ObjectType_OBJECT_DATABASE, pg.ObjectType_OBJECT_ROLE, pg.ObjectType_OBJECT_TABLESPACE:
			return "the comment of a " + objectWord(n.CommentStmt.Objtype) + " (kept in the server's shared catalog)"
		}
	case *pg.Node_GrantStmt:
		switch n.GrantStmt.Objtype {
		case pg.ObjectType_OBJECT_DATABASE, pg.ObjectType_OBJECT_TABLESPACE, pg.ObjectType_OBJECT_PARAMETER_ACL:
			return "privileges on a " + objectWord(n.GrantStmt.Objtype)
		}
	}
	return ""
}

func objectWord(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_DATABASE:
		return "database"
	case pg.ObjectType_OBJECT_ROLE:
		return "role"
	case pg.ObjectType_OBJECT_TABLESPACE:
		return "tablespace"
	case pg.ObjectType_OBJECT_PARAMETER_ACL:
		return "server parameter"
	}
	return "server-wide object"
}
