package explain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

// Dependencies a prediction can name in depends_on: what PostgreSQL
// decides at run time, from the rows, that the catalog and the statement
// cannot tell.
const (
	// DepPageSpace: HOT needs the new version to fit on the old one's page
	// (heap_update: newbuf == buffer; the page's free space after pruning,
	// not the fillfactor, decides).
	DepPageSpace = "page free space"
	// DepNewValue: a set column counts as modified only if its new value
	// differs from the old, byte for byte (HeapDetermineColumnsInfo).
	DepNewValue = "new value equals old"
	// DepOldNull: c + 1 or c || 'x' gives the old value back where c is NULL.
	DepOldNull = "old value is null"
	// DepPredicate: a partial index gets an entry only for a new row that
	// matches its WHERE.
	DepPredicate = "partial index predicate"
	// DepBRINRange: a BRIN index writes only when the new value widens its
	// block range's summary (and the range is summarized).
	DepBRINRange = "brin range summary"
	// DepValueSize: a variable-length value goes to the TOAST relation, one
	// TOAST index entry per chunk, only when it is large enough.
	DepValueSize = "new value size"
	// DepAccessMethod: an index access method writeamp does not know;
	// whether it is summarizing (does not block HOT) is the module's flag.
	DepAccessMethod = "index access method"
)

// Certainty of a Hit's entries_per_row.
const (
	Exact      = "exact"
	UpperBound = "upper_bound"
	Unknown    = "unknown"
)

// Hit is an index a write touches, and why.
type Hit struct {
	Index string `json:"index"`
	// Roles are how the set columns are in the index: "key v",
	// "include w", "expression of v", "predicate of v".
	Roles []string `json:"roles,omitempty"`
	// Entries is the index entries one row adds to this index: for an
	// UPDATE whose HOT is "possible", when the update is HOT (IfNotHOT is
	// what a non-HOT one adds). Not shown (null) when Certainty is Unknown.
	Entries float64 `json:"entries_per_row"`
	// IfNotHOT: for an UPDATE whose HOT is "possible", the entries a row
	// adds when its update is not HOT.
	IfNotHOT *float64 `json:"entries_if_not_hot,omitempty"`
	// Certainty is Exact, UpperBound (Entries is at most) or Unknown.
	Certainty string `json:"certainty"`
	// DependsOn names what makes the count not exact (the Dep* values).
	DependsOn []string `json:"depends_on,omitempty"`
	// Maybe: the count is not exact (Certainty is not Exact).
	Maybe bool   `json:"maybe,omitempty"`
	Note  string `json:"note,omitempty"`
}

// MarshalJSON writes an Unknown count as null, never as a number.
func (h Hit) MarshalJSON() ([]byte, error) {
	type plain Hit
	out := struct {
		plain
		Entries *float64 `json:"entries_per_row"`
	}{plain: plain(h)}
	if h.Certainty != Unknown {
		out.Entries = &h.Entries
	}
	return json.Marshal(out)
}

// Prediction is what one write statement should cost each row it writes.
type Prediction struct {
	Line      int      `json:"line"`
	Statement string   `json:"statement"`
	Kind      string   `json:"kind"`
	Table     string   `json:"table"`
	Columns   []string `json:"columns,omitempty"` // the columns an UPDATE sets
	// HOT is, for a PostgreSQL UPDATE, "no" (a column a HOT-blocking index
	// reads certainly changes: no row can be HOT) or "possible" (HOT when
	// the run-time conditions in DependsOn hold); "" elsewhere. "yes" is
	// never said of an UPDATE: whether the page has room is always decided
	// at run time.
	HOT string `json:"hot,omitempty"`
	// DependsOn: what HOT depends on at run time (the Dep* values), for
	// HOT "possible".
	DependsOn []string `json:"depends_on,omitempty"`
	// Fillfactor of the heap (PostgreSQL), which the page free space that
	// HOT needs depends on.
	Fillfactor int `json:"fillfactor,omitempty"`
	// Rewrites are, on InnoDB, the secondary indexes an UPDATE rewrites
	// (delete-mark and insert), every one when it changes the primary key.
	Rewrites []string `json:"rewrites,omitempty"`
	Indexes  []Hit    `json:"indexes"`
	// EntriesPerRow is the sum of the indexes' known entries per row (an
	// upper bound where one is UpperBound; Unknown ones are left out).
	EntriesPerRow float64  `json:"index_entries_per_row"`
	Reasons       []string `json:"reasons,omitempty"`
}

// knownMethods are the core access methods; of them only BRIN is
// summarizing (amsummarizing, PostgreSQL 16 on).
var knownMethods = map[string]bool{"btree": true, "hash": true, "gist": true, "gin": true, "spgist": true, "brin": true}

// Summarizing says whether an index of access method on a server of version
// (server_version_num) is summarizing: it keeps one summary per block range,
// not an entry per row, and from PostgreSQL 16 (amsummarizing) its columns do
// not block HOT. Before 16 every index's columns block HOT
// (INDEX_ATTR_BITMAP_ALL).
func Summarizing(method string, version int) bool { return method == "brin" && version >= 160000 }

func summarizing(ix Index, version int) bool { return Summarizing(ix.Method, version) }

func roles(ix Index, cols []string) []string {
	var out []string
	for _, c := range cols {
		switch {
		case has(ix.Keys, c) && ix.Expr:
			out = append(out, "key or expression of "+c)
		case has(ix.Keys, c):
			out = append(out, "key "+c)
		case has(ix.Include, c):
			out = append(out, "include "+c)
		case has(ix.Predicate, c):
			out = append(out, "predicate of "+c)
		}
	}
	return out
}

func has(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Predict applies the dialect's rules to one write on its table.
func Predict(dialect string, version int, w sqlparse.Write, t Table) Prediction {
	p := Prediction{Line: w.Line, Statement: oneLine(w.Statement), Kind: w.Kind, Table: qualified(t), Columns: w.Columns}
	if !t.Found {
		p.Reasons = append(p.Reasons, "table "+qualified(t)+" is not in the catalog (nor created earlier in the file): no index is known")
		return p
	}
	switch dialect {
	case "postgres":
		predictPostgres(&p, version, w, t)
	default:
		predictInnoDB(&p, w, t)
	}
	for i := range p.Indexes {
		h := &p.Indexes[i]
		if h.Certainty == "" {
			h.Certainty = Exact
		}
		if h.Certainty != Unknown {
			p.EntriesPerRow += h.Entries
		}
	}
	return p
}

// indexColumns are the columns an index reads: key and INCLUDE columns,
// the columns of its key expressions and of its predicate
// (RelationGetIndexAttrBitmap collects all of them).
func indexColumns(ix Index) []string {
	return append(append(append([]string{}, ix.Keys...), ix.Include...), ix.Predicate...)
}

// rowEntries is what a row written to the index (an insert, or a non-HOT
// update) adds: one insertion, at most one for a partial index (its WHERE
// decides) and for BRIN (it writes only when the value widens its range's
// summary).
func rowEntries(ix Index) (float64, string, []string, string) {
	switch {
	case ix.Method == "brin":
		return 1, UpperBound, []string{DepBRINRange}, "brin: a summary per block range, written only when the new value widens it"
	case ix.Partial:
		return 1, UpperBound, []string{DepPredicate}, "partial: only a row matching its predicate gets an entry"
	case ix.Method == "gin":
		return 1, Exact, nil, "gin: one insertion, holding an item per key the value yields"
	case ix.Method != "btree" && ix.Method != "":
		return 1, Exact, nil, ix.Method + ": one insertion"
	}
	return 1, Exact, nil, ""
}

func predictPostgres(p *Prediction, version int, w sqlparse.Write, t Table) {
	p.Fillfactor = t.Fillfactor
	toastable := false
	for _, c := range t.Columns {
		toastable = toastable || c.Toastable
	}
	toastHit := func(writes bool, why string) {
		if t.ToastIndex == "" {
			return
		}
		h := Hit{Index: t.ToastIndex, Certainty: Exact, Note: "TOAST index: " + why}
		if writes {
			h.Certainty, h.Maybe, h.DependsOn = Unknown, true, []string{DepValueSize}
		}
		p.Indexes = append(p.Indexes, h)
	}
	switch w.Kind {
	case "insert":
		for _, ix := range t.Indexes {
			e, c, deps, note := rowEntries(ix)
			p.Indexes = append(p.Indexes, Hit{Index: ix.Name, Entries: e, Certainty: c, Maybe: c != Exact, DependsOn: deps, Note: note})
		}
		toastHit(toastable, "one entry per chunk of each value stored out of line (a large variable-length value)")
		p.Reasons = append(p.Reasons, "an inserted row gets an entry in every index of its table")
		if len(w.OnConflictUpdate) > 0 {
			p.Reasons = append(p.Reasons, "ON CONFLICT DO UPDATE: a conflicting row is updated instead (SET "+strings.Join(w.OnConflictUpdate, ", ")+"), with the HOT rules of an UPDATE")
		}
	case "delete":
		p.Reasons = append(p.Reasons, "a DELETE only marks the heap row dead: no index entry is written now; VACUUM removes the row's entries later")
	case "update":
		predictPGUpdate(p, version, w, t)
		var toastSet []string
		for _, c := range w.Columns {
			if t.Columns[strings.ToLower(c)].Toastable && setChanges(w.Statement, w.Table, t.Columns)[strings.ToLower(c)] != changeNone {
				toastSet = append(toastSet, c)
			}
		}
		if len(toastSet) > 0 {
			toastHit(true, "one entry per chunk of a new value of "+strings.Join(toastSet, ", ")+" stored out of line, whether the update is HOT or not")
		} else {
			toastHit(false, "no set column's value can go out of line")
		}
	}
}

func predictPGUpdate(p *Prediction, version int, w sqlparse.Write, t Table) {
	changes := setChanges(w.Statement, w.Table, t.Columns)
	status := func(col string) change {
		if !has(w.Columns, col) {
			return changeNone
		}
		if c, ok := changes[strings.ToLower(col)]; ok {
			return c
		}
		return changeMaybe
	}
	depOf := func(c change) string {
		if c == changeUnlessNull {
			return DepOldNull
		}
		return DepNewValue
	}
	deps := map[string]bool{}
	var certain, maybe []string // HOT-blocking indexes a set column certainly / maybe modifies
	summarizedMaybe := false    // a summarizing index's column may change
	unknownAM := false
	for _, ix := range t.Indexes {
		cert, may := false, map[string]bool{}
		for _, col := range indexColumns(ix) {
			switch c := status(col); c {
			case changeCertain:
				cert = true
			case changeMaybe, changeUnlessNull:
				may[depOf(c)] = true
			}
		}
		if !cert && len(may) == 0 {
			continue
		}
		label := fmt.Sprintf("%s (%s)", ix.Name, strings.Join(roles(ix, w.Columns), ", "))
		switch {
		case summarizing(ix, version):
			summarizedMaybe = true
		case version >= 160000 && !knownMethods[ix.Method]:
			// A summarizing module would not block HOT; a plain one would.
			unknownAM = true
			deps[DepAccessMethod] = true
			maybe = append(maybe, label)
		case cert:
			certain = append(certain, label)
		default:
			for d := range may {
				deps[d] = true
			}
			maybe = append(maybe, label)
		}
	}
	if len(certain) > 0 {
		p.HOT = "no"
		p.Reasons = append(p.Reasons, "not HOT: each row's new value of a column that "+strings.Join(certain, "; ")+" reads differs from the old one, so each row's new version gets an entry in every index of the table (not a summarizing one's unless its range widens)")
	} else {
		p.HOT = "possible"
		deps[DepPageSpace] = true
		why := "HOT possible: "
		if len(maybe) > 0 {
			why += "a row is HOT only if the columns that " + strings.Join(maybe, "; ") + " reads keep their values (PostgreSQL compares old and new values, byte for byte)"
			if unknownAM {
				why += ", or the access method is summarizing"
			}
			why += ", and "
		} else {
			why += "no HOT-blocking index reads a column whose value the statement changes, so "
		}
		why += "the new version is a heap-only tuple with no index entry when it fits on the old one's page (its free space after pruning decides"
		if t.Fillfactor > 0 {
			why += fmt.Sprintf("; fillfactor %d is what inserts leave free", t.Fillfactor)
		}
		why += "), else it gets an entry in every index"
		p.Reasons = append(p.Reasons, why)
	}
	for d := range deps {
		p.DependsOn = append(p.DependsOn, d)
	}
	sort.Strings(p.DependsOn)
	for _, ix := range t.Indexes {
		e, c, hdeps, note := rowEntries(ix)
		h := Hit{Index: ix.Name, Roles: roles(ix, w.Columns), Entries: e, Certainty: c, DependsOn: hdeps, Note: note}
		if p.HOT == "possible" {
			ifNot := e
			h.IfNotHOT = &ifNot
			h.Entries = 0
			switch {
			case summarizing(ix, version) && summarizedMaybe:
				// PostgreSQL 16+: a HOT update that changes a summarizing
				// index's column still inserts into every summarizing index.
				h.Entries = 1
				h.Note = joinNote(note, "updated even when the update is HOT (summarizing)")
			case summarizing(ix, version):
				h.Note = joinNote(note, "no column of a summarizing index changes: a HOT update leaves it alone")
			default:
				h.Note = joinNote(note, "none when the update is HOT")
			}
		}
		h.Maybe = h.Certainty != Exact
		p.Indexes = append(p.Indexes, h)
	}
}
