package sqlparse

import (
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

type pgNode = pg.Node

// pgAttach gives each statement PostgreSQL's parse tree. When the text
// between the first and the last statement parses as a whole, PostgreSQL's
// parser also decides the split (its statement locations replace the
// lexer's; not in a goose-annotated file, whose annotations decide); otherwise each statement is parsed alone and one that does not
// parse keeps the parser's error (the server may still accept it: its
// grammar can be newer than libpg_query's, PostgreSQL 17).
func pgAttach(src string, st []Statement, whole bool) ([]Statement, error) {
	if len(st) == 0 {
		return st, nil
	}
	lo, hi := st[0].Start, st[len(st)-1].End
	if hi-lo > wholeParseLimit {
		return pgAttachEach(src, st), nil
	}
	if tree, err := parseIf(whole, src[lo:hi]); err == nil {
		var out []Statement
		for _, raw := range tree.Stmts {
			s, e := lo+int(raw.StmtLocation), hi
			if raw.StmtLen > 0 {
				e = s + int(raw.StmtLen)
			}
			toks, err := lex(pgRules, src[s:e])
			if err != nil {
				return nil, err
			}
			one, ok := makeStatement(src[s:e], toks)
			if !ok {
				continue
			}
			one.Start, one.End = s+one.Start, s+one.End
			one.pg = raw.Stmt
			out = append(out, one)
		}
		numberLines(src, out)
		return out, nil
	}
	return pgAttachEach(src, st), nil
}

// wholeParseLimit is the largest script PostgreSQL's parser reads as a
// whole. Past it psql's rules split (as psql itself does) and each
// statement is parsed alone: the parser, run as WebAssembly, is slow enough
// that a large data file of INSERTs read whole would take minutes.
const wholeParseLimit = 1 << 20

// pgAttachEach parses each statement alone, except in a script past
// wholeParseLimit a plain INSERT, whose one target table the tokens name
// (see pgChangedTable) and whose tree nothing else reads.
func pgAttachEach(src string, st []Statement) []Statement {
	big := st[len(st)-1].End-st[0].Start > wholeParseLimit
	for i := 0; i < len(st); i++ {
		if big && firstWord(st[i].Text) == "insert" {
			st[i].lexOnly = true
			continue
		}
		if big {
			// A call into the parser costs as much as kilobytes of text:
			// runs of statements are parsed together, as long as the parser
			// reads the run as the same statements.
			j := i
			for j < len(st) && st[j].End-st[i].Start < chunkParse && firstWord(st[j].Text) != "insert" {
				j++
			}
			if j-i > 1 && pgAttachRun(src, st[i:j]) {
				i = j - 1
				continue
			}
		}
		tree, err := pgParse(st[i].Text)
		switch {
		case err != nil:
			st[i].pgErr = err
		case len(tree.Stmts) != 1:
			st[i].pgErr = fmt.Errorf("PostgreSQL's parser reads %d statements here", len(tree.Stmts))
		default:
			st[i].pg = tree.Stmts[0].Stmt
		}
	}
	return st
}

const chunkParse = 64 << 10

// pgAttachRun parses st (consecutive statements of src) in one call and
// attaches the trees when the parser reads the same statements there.
func pgAttachRun(src string, st []Statement) bool {
	lo := st[0].Start
	tree, err := pgParse(src[lo:st[len(st)-1].End])
	if err != nil || len(tree.Stmts) != len(st) {
		return false
	}
	for k, raw := range tree.Stmts {
		// The parser's statement starts where the lexer's does, after the
		// previous one's terminator and any space or comment.
		if s := lo + int(raw.StmtLocation); s > st[k].Start || (k > 0 && s < st[k-1].End) {
			return false
		}
	}
	for k, raw := range tree.Stmts {
		st[k].pg = raw.Stmt
	}
	return true
}

// firstWord is the statement's first keyword, lower case ("" when it starts
// with something else, e.g. a parenthesis).
func firstWord(text string) string {
	c := newCursor(pgRules, text[:min(len(text), 64)])
	if t := c.peek(0); t.kind == word {
		return strings.ToLower(t.text(c.src))
	}
	return ""
}

func parseIf(do bool, text string) (*pg.ParseResult, error) {
	if !do {
		return nil, errNotTried
	}
	return pgParse(text)
}

var errNotTried = errors.New("not parsed as a whole")

// ParseError is why PostgreSQL's parser did not read a statement (nil when
// it did, or for other dialects).
func (s Statement) ParseError() error { return s.pgErr }

// Unparsed reports a statement that PostgreSQL's parser was not asked to
// read (a plain INSERT of a large data script, see wholeParseLimit): what
// it does is read from its tokens.
func (s Statement) Unparsed() bool { return s.lexOnly }

// walk calls fn for every message in m's tree, depth first; fn returns
// false to skip a message's children.
func walk(m proto.Message, fn func(protoreflect.Message) bool) {
	if m == nil {
		return
	}
	var visit func(protoreflect.Message)
	visit = func(r protoreflect.Message) {
		if !r.IsValid() || !fn(r) {
			return
		}
		r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return true
		})
	}
	visit(m.ProtoReflect())
}

// columnsOf lists the columns an expression reads (ColumnRef's last name).
func columnsOf(n proto.Message) []string {
	var out []string
	walk(n, func(r protoreflect.Message) bool {
		if c, ok := r.Interface().(*pg.ColumnRef); ok {
			if f := c.Fields; len(f) > 0 {
				if s := f[len(f)-1].GetString_(); s != nil {
					out = append(out, s.Sval)
				}
			}
			return false
		}
		return true
	})
	return out
}

func rangeVarName(r *pg.RangeVar) string {
	if r == nil {
		return ""
	}
	return r.Relname
}

func pgIndexes(s Statement) []Index {
	if s.pg == nil {
		return nil
	}
	var out []Index
	switch n := s.pg.Node.(type) {
	case *pg.Node_IndexStmt:
		x := n.IndexStmt
		ix := Index{Name: x.Idxname, Table: rangeVarName(x.Relation), Schema: x.Relation.GetSchemaname(),
			Method: x.AccessMethod, Unique: x.Unique, Concurrently: x.Concurrent, Partial: x.WhereClause != nil}
		for _, p := range x.IndexParams {
			e := p.GetIndexElem()
			if e == nil {
				continue
			}
			if e.Name != "" {
				ix.Columns = append(ix.Columns, e.Name)
				ix.Keys = append(ix.Keys, e.Name)
			} else if e.Expr != nil {
				ix.Expression = true
				cols := columnsOf(e.Expr)
				ix.Columns = append(ix.Columns, cols...)
				ix.Keys = append(ix.Keys, cols...)
			}
		}
		for _, p := range x.IndexIncludingParams {
			if e := p.GetIndexElem(); e != nil && e.Name != "" {
				ix.Include = append(ix.Include, e.Name)
				ix.Columns = append(ix.Columns, e.Name)
			}
		}
		if x.WhereClause != nil {
			ix.Predicate = dedupe(columnsOf(x.WhereClause))
			ix.Columns = append(ix.Columns, ix.Predicate...)
		}
		ix.Columns, ix.Keys = dedupe(ix.Columns), dedupe(ix.Keys)
		out = append(out, ix)
	case *pg.Node_AlterTableStmt:
		x := n.AlterTableStmt
		for _, c := range x.Cmds {
			cmd := c.GetAlterTableCmd()
			con := cmd.GetDef().GetConstraint()
			if cmd.GetSubtype() != pg.AlterTableType_AT_AddConstraint || con == nil || con.Indexname != "" {
				continue // USING INDEX adopts an index that exists already
			}
			switch con.Contype {
			case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_EXCLUSION:
			default:
				continue
			}
			ix := Index{Name: con.Conname, Table: rangeVarName(x.Relation), Schema: x.Relation.GetSchemaname(),
				Unique: con.Contype != pg.ConstrType_CONSTR_EXCLUSION, Constraint: true, Method: con.AccessMethod}
			for _, k := range con.Keys {
				ix.Keys = append(ix.Keys, k.GetString_().GetSval())
			}
			for _, e := range con.Exclusions { // (expr, operator) pairs
				if l := e.GetList(); l != nil && len(l.Items) > 0 {
					ix.Keys = append(ix.Keys, columnsOf(l.Items[0])...)
				}
			}
			ix.Columns = append(ix.Columns, ix.Keys...)
			for _, k := range con.Including {
				ix.Include = append(ix.Include, k.GetString_().GetSval())
				ix.Columns = append(ix.Columns, k.GetString_().GetSval())
			}
			if con.WhereClause != nil {
				ix.Partial = true
				ix.Predicate = dedupe(columnsOf(con.WhereClause))
				ix.Columns = append(ix.Columns, ix.Predicate...)
			}
			ix.Columns, ix.Keys = dedupe(ix.Columns), dedupe(ix.Keys)
			out = append(out, ix)
		}
	}
	return out
}

// pgUpdates finds every UPDATE in the statement, data-modifying CTEs
// included: the target table and the columns its SET list assigns (the
// tables of UPDATE … FROM are only read).
func pgUpdates(s Statement) []Update {
	if s.pg == nil {
		return nil
	}
	var out []Update
	walk(s.pg, func(r protoreflect.Message) bool {
		u, ok := r.Interface().(*pg.UpdateStmt)
		if !ok {
			return true
		}
		up := Update{Table: rangeVarName(u.Relation), Schema: u.Relation.GetSchemaname(), From: len(u.FromClause) > 0}
		for _, t := range u.TargetList {
			if rt := t.GetResTarget(); rt != nil && rt.Name != "" {
				up.Columns = append(up.Columns, rt.Name)
			}
		}
		up.Columns = dedupe(up.Columns)
		out = append(out, up)
		return true // an UPDATE inside its own WITH clause
	})
	return out
}

// walkNodes calls fn with every message of n's tree.
func walkNodes(n proto.Message, fn func(any)) {
	walk(n, func(r protoreflect.Message) bool {
		fn(r.Interface())
		return true
	})
}

// WalkPostgres calls fn with every message of a PostgreSQL parse tree
// (from ParsePostgres), depth first.
func WalkPostgres(n proto.Message, fn func(proto.Message)) {
	walk(n, func(r protoreflect.Message) bool {
		fn(r.Interface())
		return true
	})
}

// ParsePostgres is PostgreSQL's own parse tree of text, from the parser
// run as WebAssembly: pg_query_go's own Parse needs cgo, which the static
// release builds do not have, so the module parses only through here.
func ParsePostgres(text string) (*pg.ParseResult, error) { return pgParse(text) }
