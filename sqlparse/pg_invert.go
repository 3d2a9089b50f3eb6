package sqlparse

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgquery "github.com/wasilibs/go-pgquery"
)

// pgInvert undoes one PostgreSQL statement from its parse tree. The undo is
// built as a parse tree and printed by PostgreSQL's deparser, so names are
// quoted exactly as PostgreSQL needs.
func pgInvert(s Statement) (undo []*pg.Node, reason string) {
	if s.pg == nil {
		return nil, fmt.Sprintf("PostgreSQL's parser did not read it (%v)", s.pgErr)
	}
	str := pg.MakeStrNode
	qualified := func(r *pg.RangeVar) *pg.Node {
		if r.GetSchemaname() != "" {
			return pg.MakeListNode([]*pg.Node{str(r.Schemaname), str(r.Relname)})
		}
		return pg.MakeListNode([]*pg.Node{str(r.Relname)})
	}
	drop := func(t pg.ObjectType, obj *pg.Node, concurrent bool) []*pg.Node {
		return []*pg.Node{{Node: &pg.Node_DropStmt{DropStmt: &pg.DropStmt{Objects: []*pg.Node{obj}, RemoveType: t,
			Behavior: pg.DropBehavior_DROP_RESTRICT, Concurrent: concurrent}}}}
	}
	const maybe = "IF NOT EXISTS: the object may have been there before, so dropping it could remove what the migration did not create"
	switch n := s.pg.Node.(type) {
	case *pg.Node_CreateStmt:
		x := n.CreateStmt
		switch {
		case x.IfNotExists:
			return nil, maybe
		case x.Relation.GetRelpersistence() == "t":
			return nil, "" // a temporary table ends with the session
		}
		return drop(pg.ObjectType_OBJECT_TABLE, qualified(x.Relation), false), ""
	case *pg.Node_CreateTableAsStmt:
		x := n.CreateTableAsStmt
		if x.IfNotExists {
			return nil, maybe
		}
		t := pg.ObjectType_OBJECT_TABLE
		if x.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			t = x.Objtype
		}
		return drop(t, qualified(x.Into.GetRel()), false), ""
	case *pg.Node_IndexStmt:
		x := n.IndexStmt
		switch {
		case x.IfNotExists:
			return nil, maybe
		case x.Idxname == "":
			return nil, "an index without a name: PostgreSQL picks one, which the migration's text does not say"
		}
		name := &pg.RangeVar{Schemaname: x.Relation.GetSchemaname(), Relname: x.Idxname}
		return drop(pg.ObjectType_OBJECT_INDEX, qualified(name), x.Concurrent), ""
	case *pg.Node_CreateSchemaStmt:
		x := n.CreateSchemaStmt
		if x.IfNotExists {
			return nil, maybe
		}
		if x.Schemaname == "" {
			return nil, "CREATE SCHEMA AUTHORIZATION without a name"
		}
		d := drop(pg.ObjectType_OBJECT_SCHEMA, str(x.Schemaname), false)
		if len(x.SchemaElts) > 0 { // its own elements go with it
			d[0].GetDropStmt().Behavior = pg.DropBehavior_DROP_CASCADE
		}
		return d, ""
	case *pg.Node_CreateSeqStmt:
		if n.CreateSeqStmt.IfNotExists {
			return nil, maybe
		}
		return drop(pg.ObjectType_OBJECT_SEQUENCE, qualified(n.CreateSeqStmt.Sequence), false), ""
	case *pg.Node_ViewStmt:
		if n.ViewStmt.Replace {
			return nil, "CREATE OR REPLACE VIEW: the view it replaced is not in the migration"
		}
		return drop(pg.ObjectType_OBJECT_VIEW, qualified(n.ViewStmt.View), false), ""
	case *pg.Node_CreateExtensionStmt:
		if n.CreateExtensionStmt.IfNotExists {
			return nil, maybe
		}
		return drop(pg.ObjectType_OBJECT_EXTENSION, str(n.CreateExtensionStmt.Extname), false), ""
	case *pg.Node_CreateEnumStmt:
		return drop(pg.ObjectType_OBJECT_TYPE, &pg.Node{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{Names: n.CreateEnumStmt.TypeName}}}, false), ""
	case *pg.Node_AlterTableStmt:
		return pgInvertAlter(n.AlterTableStmt)
	case *pg.Node_RenameStmt:
		return pgInvertRename(n.RenameStmt)
	case *pg.Node_TransactionStmt, *pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt:
		return nil, "" // no lasting change
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_TruncateStmt, *pg.Node_CopyStmt, *pg.Node_MergeStmt:
		return nil, "it changes data; the rows as they were are not in the migration"
	case *pg.Node_DropStmt:
		return nil, "DROP removes a definition (and its data) that the migration does not contain"
	case *pg.Node_SelectStmt:
		if n.SelectStmt.IntoClause == nil && !callsFunction(s.pg) {
			return nil, ""
		}
		return nil, "a SELECT that calls functions or creates a table may change anything"
	}
	return nil, fmt.Sprintf("%s: no inverse known", nodeName(s.pg))
}

func callsFunction(n *pg.Node) bool {
	found := false
	walkNodes(n, func(x any) {
		if _, ok := x.(*pg.FuncCall); ok {
			found = true
		}
	})
	return found
}

func nodeName(n *pg.Node) string {
	return string(n.ProtoReflect().WhichOneof(n.ProtoReflect().Descriptor().Oneofs().Get(0)).Message().Name())
}

// pgInvertAlter undoes ALTER TABLE commands in reverse order, all or none.
func pgInvertAlter(x *pg.AlterTableStmt) ([]*pg.Node, string) {
	if x.Objtype != pg.ObjectType_OBJECT_TABLE {
		return nil, "ALTER " + x.Objtype.String()[len("OBJECT_"):] + ": no inverse known"
	}
	if x.MissingOk {
		return nil, "ALTER TABLE IF EXISTS: whether it changed anything is not known beforehand"
	}
	var cmds []*pg.Node
	for i := len(x.Cmds) - 1; i >= 0; i-- {
		c := x.Cmds[i].GetAlterTableCmd()
		inv := &pg.AlterTableCmd{Behavior: pg.DropBehavior_DROP_RESTRICT}
		switch c.GetSubtype() {
		case pg.AlterTableType_AT_AddColumn:
			def := c.GetDef().GetColumnDef()
			if c.MissingOk {
				return nil, "ADD COLUMN IF NOT EXISTS: the column may have been there before"
			}
			inv.Subtype, inv.Name = pg.AlterTableType_AT_DropColumn, def.GetColname()
		case pg.AlterTableType_AT_AddConstraint:
			con := c.GetDef().GetConstraint()
			switch {
			case con.GetConname() == "":
				return nil, "ADD CONSTRAINT without a name: PostgreSQL picks one, which the migration's text does not say"
			case con.GetIndexname() != "":
				return nil, "ADD CONSTRAINT … USING INDEX adopts an existing index: dropping the constraint would drop that index too"
			}
			inv.Subtype, inv.Name = pg.AlterTableType_AT_DropConstraint, con.Conname
		default:
			return nil, alterWhat(c.GetSubtype()) + ": the state before it is not in the migration"
		}
		cmds = append(cmds, &pg.Node{Node: &pg.Node_AlterTableCmd{AlterTableCmd: inv}})
	}
	return []*pg.Node{{Node: &pg.Node_AlterTableStmt{AlterTableStmt: &pg.AlterTableStmt{Relation: x.Relation, Cmds: cmds, Objtype: x.Objtype}}}}, ""
}

func pgInvertRename(x *pg.RenameStmt) ([]*pg.Node, string) {
	if x.MissingOk {
		return nil, "RENAME with IF EXISTS: whether it renamed anything is not known beforehand"
	}
	inv := &pg.RenameStmt{RenameType: x.RenameType, RelationType: x.RelationType, Behavior: x.Behavior}
	switch x.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_MATVIEW:
		inv.Relation = &pg.RangeVar{Schemaname: x.Relation.GetSchemaname(), Relname: x.Newname, Inh: true, Relpersistence: "p"}
		inv.Newname = x.Relation.GetRelname()
	case pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT:
		inv.Relation, inv.Subname, inv.Newname = x.Relation, x.Newname, x.Subname
	case pg.ObjectType_OBJECT_SCHEMA:
		inv.Subname, inv.Newname = x.Newname, x.Subname
	default:
		return nil, "RENAME of " + x.RenameType.String()[len("OBJECT_"):] + ": no inverse known"
	}
	return []*pg.Node{{Node: &pg.Node_RenameStmt{RenameStmt: inv}}}, ""
}

// deparse prints parse trees as SQL with PostgreSQL's deparser.
func deparse(nodes []*pg.Node) ([]string, error) {
	var out []string
	for _, n := range nodes {
		sql, err := pgquery.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
		if err != nil {
			return nil, fmt.Errorf("deparse %s: %w", nodeName(n), err)
		}
		out = append(out, sql)
	}
	return out, nil
}

func alterWhat(t pg.AlterTableType) string {
	switch t {
	case pg.AlterTableType_AT_AlterColumnType:
		return "ALTER COLUMN … TYPE (the data is converted)"
	case pg.AlterTableType_AT_ColumnDefault:
		return "ALTER COLUMN … SET/DROP DEFAULT"
	case pg.AlterTableType_AT_SetNotNull, pg.AlterTableType_AT_DropNotNull:
		return "ALTER COLUMN … SET/DROP NOT NULL"
	case pg.AlterTableType_AT_DropColumn:
		return "DROP COLUMN (and its data)"
	case pg.AlterTableType_AT_DropConstraint:
		return "DROP CONSTRAINT"
	}
	return "ALTER TABLE " + strings.TrimPrefix(t.String(), "AT_")
}
