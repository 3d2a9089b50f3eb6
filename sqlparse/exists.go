package sqlparse

import (
	"fmt"
	"maps"
	"strings"
)

// What CREATE … IF NOT EXISTS and DROP … IF EXISTS do depends on the
// database, not on the text: CREATE INDEX IF NOT EXISTS on an index that is
// already there does nothing (dropping it afterwards would remove what the
// migration did not create), on a missing one it creates it like CREATE
// INDEX; DROP TABLE IF EXISTS on a missing table does nothing, on an
// existing one it drops it with its data. Existence resolves them against
// the catalog as it is before anything is applied (asked once per object,
// by the caller's Exists) and against what the statements applied before
// them create.

// Object kinds an IF [NOT] EXISTS names.
const (
	ObjRelation  = "relation"  // PostgreSQL: table, index, sequence, view, materialized view (one namespace)
	ObjTable     = "table"     // MySQL/MariaDB: table, view, sequence (one namespace)
	ObjIndex     = "index"     // Table names its table
	ObjColumn    = "column"    // Table names its table
	ObjSchema    = "schema"    // PostgreSQL schema; MySQL/MariaDB database
	ObjExtension = "extension" // PostgreSQL
	ObjType      = "type"      // PostgreSQL
	ObjProcedure = "procedure" // MySQL/MariaDB
	ObjFunction  = "function"  // MySQL/MariaDB
	ObjTrigger   = "trigger"   // MySQL/MariaDB
	ObjEvent     = "event"     // MySQL/MariaDB
)

// Object is what an IF [NOT] EXISTS clause names, as written (PostgreSQL:
// as its parser folds it).
type Object struct {
	Kind string
	// Schema qualifies Name ("" when unqualified); for an index or a
	// column, it qualifies Table.
	Schema, Name, Table string
	// Create: asked for CREATE … IF NOT EXISTS, where the object would be
	// created (PostgreSQL: the first schema of search_path for an
	// unqualified name); otherwise for DROP … IF EXISTS, what it would find
	// (the first match on search_path).
	Create bool
}

func (o Object) String() string {
	s := o.Kind + " " + o.Name
	switch {
	case o.Table != "" && o.Schema != "":
		s += " on " + o.Schema + "." + o.Table
	case o.Table != "":
		s += " on " + o.Table
	case o.Schema != "":
		s = o.Kind + " " + o.Schema + "." + o.Name
	}
	return s
}

// Exists says whether o exists in the database before anything is applied;
// an error (the catalog could not be read, the answer is ambiguous) refuses
// the statement with it as the reason.
type Exists func(o Object) (bool, error)

// Existence answers IF [NOT] EXISTS for statements applied in order. The
// zero value and nil answer nothing: such statements are refused, as
// without a database to ask.
type Existence struct {
	dialect string
	ask     Exists
	made    map[string]bool // objects the statements applied before create
	// moved says why a name no longer means what the catalog read before
	// says (an earlier RENAME or SET search_path): IF [NOT] EXISTS after it
	// is refused.
	moved string
	// pending: what the statement being inverted creates, kept when it
	// inverts.
	pending []string
	// dry: only what statements create is wanted, not their undo (After).
	dry bool
}

// NewExistence answers IF [NOT] EXISTS of dialect's statements with ask.
func NewExistence(dialect string, ask Exists) *Existence {
	return &Existence{dialect: dialect, ask: ask, made: map[string]bool{}}
}

func (e *Existence) clone() *Existence {
	if e == nil {
		return nil
	}
	c := *e
	c.made, c.pending = maps.Clone(e.made), nil
	return &c
}

// After is e once stmts are applied: what they create exists.
func (e *Existence) After(stmts []Statement) *Existence {
	if e == nil {
		return nil
	}
	c := e.clone()
	c.dry = true
	for _, s := range stmts {
		c.invertOne(s)
	}
	c.dry = false
	return c
}

// key names o the way its dialect compares names: MySQL/MariaDB index and
// column names are per table and case-insensitive, PostgreSQL's index
// names share the schema's namespace with tables.
func (e *Existence) key(o Object) string {
	kind, table := o.Kind, o.Table
	if e.dialect == Postgres && o.Kind == ObjIndex {
		kind, table = ObjRelation, ""
	}
	if o.Kind != ObjIndex && o.Kind != ObjColumn {
		table = ""
	}
	k := kind + "|" + o.Schema + "|" + table + "|" + o.Name
	if e.dialect == MySQL {
		k = strings.ToLower(k)
	}
	return k
}

// creates records that the statement being inverted creates o.
func (e *Existence) creates(o Object) {
	if e != nil {
		e.pending = append(e.pending, e.key(o))
	}
}

// rename records that names move: the catalog read before no longer says
// what a later IF [NOT] EXISTS finds.
func (e *Existence) rename(why string) {
	if e != nil && e.moved == "" {
		e.moved = why
	}
}

func (e *Existence) exists(o Object) (bool, string) {
	if e.made[e.key(o)] {
		return true, ""
	}
	if e.moved != "" {
		return false, fmt.Sprintf("whether %s exists then is not known beforehand: %s", o, e.moved)
	}
	ok, err := e.ask(o)
	if err != nil {
		return false, fmt.Sprintf("whether %s exists could not be read: %v", o, err)
	}
	return ok, ""
}

// ifNotExistsUnasked refuses IF NOT EXISTS when no database is asked.
const ifNotExistsUnasked = "IF NOT EXISTS: the object may have been there before, so dropping it could remove what the migration did not create"

// ifNotExists resolves CREATE … IF NOT EXISTS o: there (a no-op, nothing to
// undo), or not (undone like CREATE), or a reason to refuse.
func (e *Existence) ifNotExists(o Object) (there bool, reason string) {
	if e == nil || e.ask == nil {
		return false, ifNotExistsUnasked
	}
	o.Create = true
	there, why := e.exists(o)
	if why != "" {
		return false, "IF NOT EXISTS: " + why
	}
	e.creates(o)
	return there, ""
}

// ifExists resolves DROP … IF EXISTS objs: all missing is a no-op; one
// there is a DROP, refused with the reason that names it.
func (e *Existence) ifExists(objs ...Object) (reason string) {
	const drop = "DROP removes a definition (and its data) that the migration does not contain"
	if e == nil || e.ask == nil {
		return drop
	}
	for _, o := range objs {
		there, why := e.exists(o)
		switch {
		case why != "":
			return "DROP … IF EXISTS: " + why
		case there:
			return drop + " (" + o.String() + " exists, so IF EXISTS drops it)"
		}
	}
	return ""
}

// invertOne inverts s in e's state and advances it: what s creates exists
// for the statements after it when s inverts.
func (e *Existence) invertOne(s Statement) (undo []string, reason string, err error) {
	e.pending = nil
	switch e.dialect {
	case Postgres:
		nodes, why := pgInvert(s, e)
		reason = why
		if why == "" && !e.dry {
			if undo, err = deparse(nodes); err != nil {
				return nil, "", err
			}
		}
	case MySQL:
		undo, reason = mysqlInvert(s.Text, e)
	default:
		reason = "inverting " + e.dialect + " statements is not implemented (PostgreSQL and MySQL/MariaDB are)"
	}
	if reason == "" {
		for _, k := range e.pending {
			e.made[k] = true
		}
	}
	e.pending = nil
	return undo, reason, nil
}
