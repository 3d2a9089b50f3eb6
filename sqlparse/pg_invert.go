package sqlparse

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// pgInvert undoes one PostgreSQL statement from its parse tree. The undo is
// built as a parse tree and printed by PostgreSQL's deparser, so names are
// quoted exactly as PostgreSQL needs.
func pgInvert(s Statement, e *Existence) (undo []*pg.Node, reason string) {
	if s.lexOnly { // a plain INSERT (see Unparsed)
		return nil, "it changes data; the rows as they were are not in the migration"
	}
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
	rel := func(r *pg.RangeVar) Object {
		return Object{Kind: ObjRelation, Schema: r.GetSchemaname(), Name: r.GetRelname()}
	}
	// guarded: CREATE … IF NOT EXISTS o is a no-op when o is there, a
	// CREATE otherwise; a plain CREATE creates o.
	guarded := func(ifNotExists bool, o Object) (noop bool, reason string) {
		if !ifNotExists {
			e.creates(o)
			return false, ""
		}
		return e.ifNotExists(o)
	}
	switch n := s.pg.Node.(type) {
	case *pg.Node_CreateStmt:
		x := n.CreateStmt
		if x.Relation.GetRelpersistence() == "t" {
			return nil, "" // a temporary table ends with the session
		}
		if noop, why := guarded(x.IfNotExists, rel(x.Relation)); noop || why != "" {
			return nil, why
		}
		return drop(pg.ObjectType_OBJECT_TABLE, qualified(x.Relation), false), ""
	case *pg.Node_CreateTableAsStmt:
		x := n.CreateTableAsStmt
		if noop, why := guarded(x.IfNotExists, rel(x.Into.GetRel())); noop || why != "" {
			return nil, why
		}
		t := pg.ObjectType_OBJECT_TABLE
		if x.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			t = x.Objtype
		}
		return drop(t, qualified(x.Into.GetRel()), false), ""
	case *pg.Node_IndexStmt:
		x := n.IndexStmt
		if x.Idxname == "" {
			return nil, "an index without a name: PostgreSQL picks one, which the migration's text does not say"
		}
		o := Object{Kind: ObjIndex, Schema: x.Relation.GetSchemaname(), Name: x.Idxname, Table: x.Relation.GetRelname()}
		if noop, why := guarded(x.IfNotExists, o); noop || why != "" {
			return nil, why
		}
		name := &pg.RangeVar{Schemaname: x.Relation.GetSchemaname(), Relname: x.Idxname}
		return drop(pg.ObjectType_OBJECT_INDEX, qualified(name), x.Concurrent), ""
	case *pg.Node_CreateSchemaStmt:
		x := n.CreateSchemaStmt
		if x.Schemaname == "" {
			return nil, "CREATE SCHEMA AUTHORIZATION without a name"
		}
		if noop, why := guarded(x.IfNotExists, Object{Kind: ObjSchema, Name: x.Schemaname}); noop || why != "" {
			return nil, why
		}
		d := drop(pg.ObjectType_OBJECT_SCHEMA, str(x.Schemaname), false)
		if len(x.SchemaElts) > 0 { // its own elements go with it
			d[0].GetDropStmt().Behavior = pg.DropBehavior_DROP_CASCADE
		}
		return d, ""
	case *pg.Node_CreateSeqStmt:
		if noop, why := guarded(n.CreateSeqStmt.IfNotExists, rel(n.CreateSeqStmt.Sequence)); noop || why != "" {
			return nil, why
		}
		return drop(pg.ObjectType_OBJECT_SEQUENCE, qualified(n.CreateSeqStmt.Sequence), false), ""
	case *pg.Node_ViewStmt:
		if n.ViewStmt.Replace {
			return nil, "CREATE OR REPLACE VIEW: the view it replaced is not in the migration"
		}
		e.creates(rel(n.ViewStmt.View))
		return drop(pg.ObjectType_OBJECT_VIEW, qualified(n.ViewStmt.View), false), ""
	case *pg.Node_CreateExtensionStmt:
		if noop, why := guarded(n.CreateExtensionStmt.IfNotExists, Object{Kind: ObjExtension, Name: n.CreateExtensionStmt.Extname}); noop || why != "" {
			return nil, why
		}
		return drop(pg.ObjectType_OBJECT_EXTENSION, str(n.CreateExtensionStmt.Extname), false), ""
	case *pg.Node_CreateEnumStmt:
		if names := n.CreateEnumStmt.TypeName; len(names) > 0 {
			o := Object{Kind: ObjType, Name: names[len(names)-1].GetString_().GetSval()}
			if len(names) == 2 {
				o.Schema = names[0].GetString_().GetSval()
			}
			e.creates(o)
		}
		return drop(pg.ObjectType_OBJECT_TYPE, &pg.Node{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{Names: n.CreateEnumStmt.TypeName}}}, false), ""
	case *pg.Node_AlterTableStmt:
		return pgInvertAlter(n.AlterTableStmt, e)
	case *pg.Node_RenameStmt:
		e.rename("an earlier statement renames " + strings.ToLower(strings.TrimPrefix(n.RenameStmt.RenameType.String(), "OBJECT_")) + "s")
		return pgInvertRename(n.RenameStmt)
	case *pg.Node_VariableSetStmt:
		if strings.EqualFold(n.VariableSetStmt.Name, "search_path") {
			e.rename("an earlier statement sets search_path")
		}
		return nil, ""
	case *pg.Node_TransactionStmt, *pg.Node_VariableShowStmt:
		return nil, "" // no lasting change
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_TruncateStmt, *pg.Node_CopyStmt, *pg.Node_MergeStmt:
		return nil, "it changes data; the rows as they were are not in the migration"
	case *pg.Node_DropStmt:
		return nil, pgDropIfExists(n.DropStmt, e)
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
func pgInvertAlter(x *pg.AlterTableStmt, e *Existence) ([]*pg.Node, string) {
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
			col := Object{Kind: ObjColumn, Schema: x.Relation.GetSchemaname(), Table: x.Relation.GetRelname(), Name: def.GetColname()}
			if !c.MissingOk {
				e.creates(col)
			} else if there, why := e.ifNotExists(col); why != "" {
				return nil, "ADD COLUMN " + why
			} else if there {
				continue // a no-op: nothing to undo
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
	if len(cmds) == 0 {
		return nil, ""
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
		sql, err := pgDeparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
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

// pgDropIfExists is why a DROP cannot be undone, or "" for DROP … IF
// EXISTS of objects that are all missing (a no-op).
func pgDropIfExists(x *pg.DropStmt, e *Existence) string {
	const drop = "DROP removes a definition (and its data) that the migration does not contain"
	if !x.MissingOk {
		return drop
	}
	var objs []Object
	for _, n := range x.Objects {
		var names []string
		switch {
		case n.GetList() != nil:
			for _, p := range n.GetList().Items {
				names = append(names, p.GetString_().GetSval())
			}
		case n.GetString_() != nil:
			names = []string{n.GetString_().GetSval()}
		case n.GetTypeName() != nil:
			for _, p := range n.GetTypeName().Names {
				names = append(names, p.GetString_().GetSval())
			}
		}
		o := Object{}
		switch x.RemoveType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
			o.Kind = ObjRelation
		case pg.ObjectType_OBJECT_SCHEMA:
			o.Kind = ObjSchema
		case pg.ObjectType_OBJECT_EXTENSION:
			o.Kind = ObjExtension
		case pg.ObjectType_OBJECT_TYPE:
			o.Kind = ObjType
		default:
			return "DROP " + strings.TrimPrefix(x.RemoveType.String(), "OBJECT_") + " IF EXISTS: whether it exists is not asked here; " + drop
		}
		switch {
		case len(names) == 1 && names[0] != "":
			o.Name = names[0]
		case len(names) == 2 && o.Kind != ObjSchema && o.Kind != ObjExtension:
			o.Schema, o.Name = names[0], names[1]
		default:
			return "DROP … IF EXISTS of " + strings.Join(names, ".") + ": a name this check does not resolve; " + drop
		}
		objs = append(objs, o)
	}
	return e.ifExists(objs...)
}
