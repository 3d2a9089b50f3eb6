package explain

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/writeamp/writeamp/sqlparse"
)

// change is what PostgreSQL's HeapDetermineColumnsInfo will find for a
// column an UPDATE sets: it compares the old and new values byte for byte
// (datumIsEqual; two NULLs are equal), so a SET that gives the old value
// back does not modify the column.
type change int

const (
	// changeMaybe: the new value may or may not equal the old one
	// (a constant, a parameter, any other expression).
	changeMaybe change = iota
	// changeNone: SET c = c gives the old value back, always.
	changeNone
	// changeUnlessNull: c + k (k a non-zero integer, c an integer type) or
	// c || 'non-empty' differs from c unless c is NULL (NULL op k is NULL,
	// equal to the old NULL).
	changeUnlessNull
	// changeCertain: as changeUnlessNull on a NOT NULL column.
	changeCertain
)

// setChanges reads, from the UPDATE's parse tree, how each SET target's new
// value relates to its old one; a column missing from the result is
// changeMaybe. Types come from the catalog (cols); without them nothing is
// more than changeMaybe, except SET c = c.
func setChanges(statement, table string, cols map[string]Column) map[string]change {
	out := map[string]change{}
	tree, err := sqlparse.ParsePostgres(statement)
	if err != nil {
		return out
	}
	var up *pg.UpdateStmt
	for _, raw := range tree.Stmts {
		sqlparse.WalkPostgres(raw.Stmt, func(m proto.Message) {
			if u, ok := m.(*pg.UpdateStmt); ok && up == nil && strings.EqualFold(u.GetRelation().GetRelname(), table) {
				up = u
			}
		})
	}
	if up == nil {
		return out
	}
	alias := strings.ToLower(up.GetRelation().GetRelname())
	if a := up.GetRelation().GetAlias(); a != nil {
		alias = strings.ToLower(a.Aliasname)
	}
	for _, n := range up.TargetList {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		col := strings.ToLower(rt.Name)
		if len(rt.Indirection) > 0 {
			out[col] = changeMaybe // SET c[1] = …, SET c.field = …
			continue
		}
		out[col] = classify(col, alias, rt.Val, cols[col])
	}
	return out
}

func classify(col, alias string, v *pg.Node, c Column) change {
	if v == nil {
		return changeMaybe
	}
	if isColumn(v, col, alias) {
		return changeNone
	}
	e := v.GetAExpr()
	if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 {
		return changeMaybe
	}
	op := e.Name[0].GetString_().GetSval()
	differs := false
	switch op {
	case "+", "-":
		intType := c.Type == "int2" || c.Type == "int4" || c.Type == "int8"
		l, r := e.Lexpr, e.Rexpr
		if op == "+" && isColumn(r, col, alias) {
			l, r = r, l
		}
		differs = intType && isColumn(l, col, alias) && nonZeroInt(r)
	case "||":
		textType := c.Type == "text" || c.Type == "varchar" || c.Type == "bytea"
		side := func(a, b *pg.Node) bool { return isColumn(a, col, alias) && nonEmptyString(b) }
		differs = textType && (side(e.Lexpr, e.Rexpr) || side(e.Rexpr, e.Lexpr))
	}
	switch {
	case !differs:
		return changeMaybe
	case c.NotNull:
		return changeCertain
	}
	return changeUnlessNull
}

func isColumn(n *pg.Node, col, alias string) bool {
	cr := n.GetColumnRef()
	if cr == nil {
		return false
	}
	var parts []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return false
		}
		parts = append(parts, strings.ToLower(s.Sval))
	}
	switch len(parts) {
	case 1:
		return parts[0] == col
	case 2:
		return parts[0] == alias && parts[1] == col
	}
	return false
}

func nonZeroInt(n *pg.Node) bool {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return false
	}
	if i := c.GetIval(); i != nil {
		return i.Ival != 0
	}
	return false
}

func nonEmptyString(n *pg.Node) bool {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return false
	}
	s := c.GetSval()
	return s != nil && s.Sval != ""
}
