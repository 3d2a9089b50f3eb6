package sqlparse

import (
	"fmt"
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Coverage holds a migration's statements, in the order they are applied,
// to what check's in-place proof covers: the catalog comparison (the
// definitions queries/<dialect>/check.sql lists) and the checksums of the
// tables' rows. It is an allowlist of statement kinds, not a list of
// dangers: a kind not on it may change state neither shows (a rule, an
// event trigger, a publication, a comment on a function, a server
// setting), so check runs it in place only when a down the user wrote
// undoes it. Remembering the tables the migration creates lets a trigger
// on one of them through: it goes with its table.
type Coverage struct {
	dialect string
	created map[string]bool
}

// NewCoverage starts the statements of one migration.
func NewCoverage(dialect string) *Coverage {
	return &Coverage{dialect: dialect, created: map[string]bool{}}
}

// Uncovered says why the proof does not cover what s does ("" when it
// does), in words for the refusal. Only PostgreSQL and MySQL/MariaDB are
// classified; elsewhere "" (their in-place undo has its own rules).
func (c *Coverage) Uncovered(s Statement) string {
	switch c.dialect {
	case Postgres:
		return c.pgUncovered(s)
	case MySQL:
		return c.mysqlUncovered(s)
	}
	return ""
}

func (c *Coverage) table(schema, name string) {
	c.created[strings.ToLower(name)] = true
	if schema != "" {
		c.created[strings.ToLower(schema+"."+name)] = true
	}
}

func (c *Coverage) isNew(schema, name string) bool {
	if schema != "" {
		return c.created[strings.ToLower(schema+"."+name)]
	}
	return c.created[strings.ToLower(name)]
}

// kindOf is a statement's leading keywords, for the refusal ("CREATE RULE").
func kindOf(text string) string {
	var words []string
	for _, w := range strings.Fields(text) {
		u := strings.ToUpper(strings.Trim(w, "(;"))
		if u == "" || strings.IndexFunc(u, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r == '_') }) >= 0 {
			break
		}
		words = append(words, u)
		if len(words) == 2 || (len(words) == 1 && u != "CREATE" && u != "ALTER" && u != "DROP" && u != "COMMENT") {
			break
		}
	}
	return strings.Join(words, " ")
}

func notCovered(text string) string {
	return fmt.Sprintf("%s is not among the statements whose effect check's proof covers (the catalog comparison and the rows' checksums)", kindOf(text))
}

// readOnlyFuncs are the functions a SELECT may call and still change
// nothing (set_config: a setting of the migration's own session, which
// check closes after the migration).
var readOnlyFuncs = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true, "now": true, "version": true,
	"current_setting": true, "set_config": true, "current_database": true, "current_schema": true,
	"length": true, "lower": true, "upper": true, "md5": true, "format": true, "concat": true,
	"string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "pg_sleep": true,
	"database": true, "sleep": true, "connection_id": true, "ifnull": true, "if": true,
}

func (c *Coverage) pgUncovered(s Statement) string {
	if s.lexOnly {
		return "" // a plain INSERT (see Unparsed): the rows' checksums cover it
	}
	if s.pg == nil {
		return "PostgreSQL's parser could not read it, so check cannot tell what it changes"
	}
	switch n := s.pg.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt, *pg.Node_TruncateStmt,
		*pg.Node_IndexStmt, *pg.Node_ViewStmt, *pg.Node_CreateSeqStmt, *pg.Node_CreateFunctionStmt,
		*pg.Node_CompositeTypeStmt, *pg.Node_CreateEnumStmt, *pg.Node_CreateDomainStmt, *pg.Node_CreateRangeStmt,
		*pg.Node_AlterEnumStmt, *pg.Node_TransactionStmt, *pg.Node_VacuumStmt, *pg.Node_ReindexStmt,
		*pg.Node_LockStmt, *pg.Node_CheckPointStmt:
		return ""
	case *pg.Node_VariableSetStmt:
		// The migration's session is closed after it (gate.go applyOn): a
		// setting cannot outlive it, and what it makes later statements do
		// is held to this list and the proof like anything else.
		return ""
	case *pg.Node_CreateStmt:
		if r := n.CreateStmt.Relation; r != nil {
			c.table(r.Schemaname, r.Relname)
		}
		return ""
	case *pg.Node_CreateTableAsStmt:
		if n.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			return "CREATE MATERIALIZED VIEW: a materialized view's rows are not checksummed"
		}
		if in := n.CreateTableAsStmt.Into; in != nil && in.Rel != nil {
			c.table(in.Rel.Schemaname, in.Rel.Relname)
		}
		return ""
	case *pg.Node_SelectStmt:
		if in := n.SelectStmt.IntoClause; in != nil && in.Rel != nil {
			c.table(in.Rel.Schemaname, in.Rel.Relname)
			return ""
		}
		if f := pgCalls(s); f != "" {
			return fmt.Sprintf("a SELECT that calls %s(), which may change what neither the catalog nor the rows show (a sequence, a lock, a large object, another database)", f)
		}
		return ""
	case *pg.Node_DefineStmt:
		if n.DefineStmt.Kind == pg.ObjectType_OBJECT_AGGREGATE {
			return ""
		}
	case *pg.Node_CreateSchemaStmt:
		for _, e := range n.CreateSchemaStmt.SchemaElts {
			if why := c.pgUncovered(Statement{Text: s.Text, pg: e}); why != "" {
				return "CREATE SCHEMA with " + why
			}
		}
		return ""
	case *pg.Node_CreateTrigStmt:
		if r := n.CreateTrigStmt.Relation; r != nil && c.isNew(r.Schemaname, r.Relname) {
			return ""
		}
		return "CREATE TRIGGER on a table there before the migration: what its function does while the command runs (rows into other tables, a sequence, anything it calls) is not something the catalog or the rows of that table show"
	case *pg.Node_AlterTableStmt:
		for _, cmd := range n.AlterTableStmt.Cmds {
			if at := cmd.GetAlterTableCmd(); at != nil && !coveredAlter[at.Subtype] {
				return fmt.Sprintf("ALTER … %s: the catalog comparison does not show it", strings.TrimPrefix(at.Subtype.String(), "AT_"))
			}
		}
		return ""
	case *pg.Node_RenameStmt:
		if coveredObject[n.RenameStmt.RenameType] || n.RenameStmt.RenameType == pg.ObjectType_OBJECT_COLUMN || n.RenameStmt.RenameType == pg.ObjectType_OBJECT_TABCONSTRAINT {
			return ""
		}
	case *pg.Node_DropStmt:
		if coveredObject[n.DropStmt.RemoveType] {
			return ""
		}
	case *pg.Node_AlterObjectSchemaStmt:
		if coveredObject[n.AlterObjectSchemaStmt.ObjectType] {
			return ""
		}
	case *pg.Node_AlterOwnerStmt:
		switch n.AlterOwnerStmt.ObjectType {
		case pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE:
			return ""
		}
	}
	return notCovered(s.Text)
}

// coveredObject are the objects whose existence and definition the
// PostgreSQL catalog comparison lists.
var coveredObject = map[pg.ObjectType]bool{
	pg.ObjectType_OBJECT_TABLE: true, pg.ObjectType_OBJECT_INDEX: true, pg.ObjectType_OBJECT_VIEW: true,
	pg.ObjectType_OBJECT_MATVIEW: true, pg.ObjectType_OBJECT_SEQUENCE: true, pg.ObjectType_OBJECT_FOREIGN_TABLE: true,
	pg.ObjectType_OBJECT_FUNCTION: true, pg.ObjectType_OBJECT_PROCEDURE: true, pg.ObjectType_OBJECT_ROUTINE: true,
	pg.ObjectType_OBJECT_AGGREGATE: true, pg.ObjectType_OBJECT_TYPE: true, pg.ObjectType_OBJECT_DOMAIN: true,
	pg.ObjectType_OBJECT_SCHEMA: true, pg.ObjectType_OBJECT_TRIGGER: true,
}

// coveredAlter are the ALTER TABLE actions whose result the catalog
// comparison shows (columns, defaults, NOT NULL, indexes, constraints,
// owner, persistence, row security, a trigger's enabled state). Storage
// parameters are left out: a TOAST table's are on a relation the catalog
// does not list.
var coveredAlter = map[pg.AlterTableType]bool{
	pg.AlterTableType_AT_AddColumn: true, pg.AlterTableType_AT_ColumnDefault: true, pg.AlterTableType_AT_DropNotNull: true,
	pg.AlterTableType_AT_SetNotNull: true, pg.AlterTableType_AT_DropColumn: true, pg.AlterTableType_AT_AddIndex: true,
	pg.AlterTableType_AT_AddConstraint: true, pg.AlterTableType_AT_ValidateConstraint: true,
	pg.AlterTableType_AT_AddIndexConstraint: true, pg.AlterTableType_AT_DropConstraint: true,
	pg.AlterTableType_AT_AlterColumnType: true, pg.AlterTableType_AT_ChangeOwner: true,
	pg.AlterTableType_AT_SetLogged: true, pg.AlterTableType_AT_SetUnLogged: true,
	pg.AlterTableType_AT_EnableRowSecurity: true, pg.AlterTableType_AT_DisableRowSecurity: true,
	pg.AlterTableType_AT_ForceRowSecurity: true, pg.AlterTableType_AT_NoForceRowSecurity: true,
	pg.AlterTableType_AT_EnableTrig: true, pg.AlterTableType_AT_DisableTrig: true,
	pg.AlterTableType_AT_EnableAlwaysTrig: true, pg.AlterTableType_AT_EnableReplicaTrig: true,
}

// pgCalls is the first function a statement calls that is not known to
// change nothing ("" when none).
func pgCalls(s Statement) string {
	var found string
	walk(s.pg, func(r protoreflect.Message) bool {
		if found != "" {
			return false
		}
		if f, ok := r.Interface().(*pg.FuncCall); ok {
			var parts []string
			for _, n := range f.Funcname {
				if v := n.GetString_(); v != nil {
					parts = append(parts, v.Sval)
				}
			}
			name := strings.Join(parts, ".")
			if !readOnlyFuncs[strings.TrimPrefix(strings.ToLower(name), "pg_catalog.")] {
				found = name
			}
		}
		return true
	})
	return found
}

var (
	reMyCall      = regexp.MustCompile(`(?i)([a-z_][a-z0-9_]*)\s*\(`)
	reMyAlterOpts = regexp.MustCompile(`(?i)\b(comment|auto_increment|row_format|partition|partitions|key_block_size|stats_[a-z_]+|discard|import|order\s+by|tablespace|encryption|compression)\b`)
	reMyIndex     = regexp.MustCompile(`(?is)^\s*create\s+(unique\s+|fulltext\s+|spatial\s+)?index\b`)
	reMyView      = regexp.MustCompile(`(?is)^\s*create\s+(or\s+replace\s+)?view\b`)
	reMyRoutine   = regexp.MustCompile(`(?is)^\s*create\s+(definer\s*=\s*\S+\s+)?(procedure|function)\b`)
	reMySetGlobal = regexp.MustCompile(`(?i)\b(global|persist|persist_only)\b|@@global\.|@@persist`)
)

func (c *Coverage) mysqlUncovered(s Statement) string {
	cur := newCursor(mysqlRules, s.Text)
	switch {
	case cur.word("insert", "replace", "update", "delete", "load", "truncate", "rename"),
		cur.word("begin", "commit", "analyze", "optimize"),
		cur.word("start") && cur.word("transaction"):
		return ""
	}
	cur = newCursor(mysqlRules, s.Text)
	switch {
	case cur.word("set"):
		if reMySetGlobal.MatchString(s.Text) {
			return "SET GLOBAL/PERSIST: the server's settings are not in the catalog comparison"
		}
		return "" // the migration's session is closed after it
	case cur.word("select"):
		if regexp.MustCompile(`(?i)\binto\b`).MatchString(s.Text) {
			return "SELECT … INTO: what it writes is outside the catalog and the rows"
		}
		for _, m := range reMyCall.FindAllStringSubmatch(s.Text, -1) {
			if !readOnlyFuncs[strings.ToLower(m[1])] {
				return fmt.Sprintf("a SELECT that calls %s(), which may change what neither the catalog nor the rows show", m[1])
			}
		}
		return ""
	case cur.word("drop"):
		cur.word("temporary")
		if cur.word("table", "tables", "index", "view") {
			return ""
		}
		// A routine that is there cannot be given back (its body is not in
		// the catalog comparison): the undo plan refuses that DROP; IF
		// EXISTS of a missing one does nothing.
		if cur.word("procedure", "function") {
			return ""
		}
	case cur.word("alter"):
		if cur.word("table") {
			if m := reMyAlterOpts.FindString(s.Text); m != "" {
				return fmt.Sprintf("ALTER TABLE … %s: the catalog comparison does not show it", strings.ToUpper(m))
			}
			return ""
		}
	case reMyIndex.MatchString(s.Text), reMyView.MatchString(s.Text):
		return ""
	case cur.word("create"):
		cur.word("temporary")
		if cur.word("table") {
			if cur.word("if") {
				cur.word("not")
				cur.word("exists")
			}
			if name, schema, ok := cur.name(); ok {
				c.table(schema, name)
			}
			return ""
		}
		// A new routine: the catalog comparison lists routines by name, and
		// CREATE (without OR REPLACE) of one that is there fails.
		if reMyRoutine.MatchString(s.Text) {
			return ""
		}
		if regexp.MustCompile(`(?is)^\s*create\s+(definer\s*=\s*\S+\s+)?trigger\b`).MatchString(s.Text) {
			if m := regexp.MustCompile("(?is)\\bon\\s+`?([a-z0-9_$]+)`?(\\.`?([a-z0-9_$]+)`?)?\\s+for\\s+each\\s+row").FindStringSubmatch(s.Text); m != nil {
				schema, name := "", m[1]
				if m[3] != "" {
					schema, name = m[1], m[3]
				}
				if c.isNew(schema, name) {
					return ""
				}
			}
			return "CREATE TRIGGER on a table there before the migration: its body and what it writes while the command runs are not in the catalog comparison"
		}
	}
	return notCovered(s.Text)
}
