package measure

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unique"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/result"
)

// ReadSnapshot parses a snapshot file. Every error is about the input and
// names the file, so it can be shown as one line.
//
// The file is streamed: its counters and objects are decoded one at a time
// into a list whose repeated strings are shared (stringTable), so no copy of
// the file's bytes is held. Read whole, a snapshot was held as bytes and as
// parsed at once, several times the file's size, the largest part of a
// diff's peak.
func ReadSnapshot(path string) (*SnapshotFile, error) {
	return readSnapshot(path, readOptions{})
}

// ReadSnapshotPair reads the two files of a diff, the after file first, so
// that the before file is read knowing it: its counter list is allocated
// once at the after file's length (grown by append and trimmed, the list of
// 50,000 indexes was twice its size for a moment), and the objects it holds
// exactly as the after file does are not kept (the diff's object list takes
// the after file's; a log reader maps a relation's ids of both files, equal
// here). Errors are ReadSnapshot's, the before file's first as when it is
// read first.
func ReadSnapshotPair(beforePath, afterPath string) (before, after *SnapshotFile, err error) {
	strs := stringTable{}
	after, err = readSnapshot(afterPath, readOptions{strs: strs})
	if err != nil {
		if _, berr := ReadSnapshot(beforePath); berr != nil {
			return nil, nil, berr
		}
		return nil, nil, err
	}
	o := pairOptions(after.Snapshot)
	o.strs = strs
	before, err = readSnapshot(beforePath, o)
	if err != nil {
		return nil, nil, err
	}
	return before, after, nil
}

// readOptions shape how a file's counters and objects are kept.
type readOptions struct {
	counters int                             // expected count, to allocate the list once
	drop     func(o *collectors.Object) bool // an object not to keep
	strs     stringTable                     // shared by both files of a pair
}

// pairOptions are those of a before file whose after file is s.
func pairOptions(s *collectors.Snapshot) readOptions {
	type name struct {
		level        collectors.Level
		schema, name string
	}
	byName := make(map[name]int, len(s.Objects))
	for i, o := range s.Objects {
		if _, dup := byName[name{o.Level, o.Schema, o.Name}]; !dup {
			byName[name{o.Level, o.Schema, o.Name}] = i
		}
	}
	return readOptions{counters: len(s.Counters), drop: func(o *collectors.Object) bool {
		i, ok := byName[name{o.Level, o.Schema, o.Name}]
		if !ok {
			return false
		}
		a := &s.Objects[i]
		return a.Table == o.Table && a.ID == o.ID && maps.Equal(a.Info, o.Info)
	}}
}

func readSnapshot(path string, o readOptions) (*SnapshotFile, error) {
	if o.strs == nil {
		o.strs = stringTable{}
	}
	r, err := safeio.Open(path, safeio.MaxInput)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rr := &readErr{r: r}
	f, isResult, err := decodeSnapshotFile(bufio.NewReaderSize(rr, 256<<10), o)
	if err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case rr.err != nil:
			return nil, rr.err // the reader's own (past the limit, I/O): it names the file
		case errors.As(err, &te) && f.Kind == SnapshotKind:
			return nil, fmt.Errorf("%s: damaged snapshot: %w", path, err)
		}
		return nil, fmt.Errorf("%s: not a writeamp snapshot (not JSON: %w)", path, err)
	}
	switch {
	case f.Kind == "" && isResult:
		return nil, fmt.Errorf("%s is a writeamp result, not a snapshot: take snapshots with `writeamp snapshot -o FILE`, or compare results with `writeamp compare`", path)
	case f.Kind != SnapshotKind:
		return nil, fmt.Errorf("%s: not a writeamp snapshot (kind %q)", path, f.Kind)
	case f.SchemaVersion > SnapshotSchemaVersion:
		return nil, fmt.Errorf("%s: snapshot schema_version %d, this writeamp reads up to %d", path, f.SchemaVersion, SnapshotSchemaVersion)
	}
	if err := checkReading(path, f, false); err != nil {
		return nil, err
	}
	for _, n := range f.Nodes {
		if n == nil || n.Label == "" {
			return nil, fmt.Errorf("%s: damaged snapshot: a node's reading has no label", path)
		}
		if err := checkReading(path+" ("+n.Label+")", n, true); err != nil {
			return nil, err
		}
		n.Path = path + " (" + n.Label + ")"
	}
	// append leaves up to a quarter of the list spare, held for the whole
	// diff.
	if cs := f.Snapshot.Counters; cap(cs) > len(cs)+len(cs)/16 {
		f.Snapshot.Counters = slices.Clone(cs)
	}
	f.Path = path
	return f, nil
}

// readErr keeps the reader's error apart from the decoder's.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// decodeSnapshotFile reads the file's top-level object field by field, as
// json.Unmarshal into SnapshotFile would (field names matched without
// regard to case, unknown fields skipped, the first type error returned
// after the rest is read). isResult says the object has a result's "runs".
func decodeSnapshotFile(r io.Reader, o readOptions) (f *SnapshotFile, isResult bool, err error) {
	f = &SnapshotFile{}
	dec := json.NewDecoder(r)
	var typeErr error
	keep := func(err error) error {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if typeErr == nil {
				typeErr = err
			}
			return nil
		}
		return err
	}
	err = eachField(dec, func(key string) error {
		switch key {
		case "kind":
			return keep(dec.Decode(&f.Kind))
		case "schema_version":
			return keep(dec.Decode(&f.SchemaVersion))
		case "tool":
			return keep(dec.Decode(&f.Tool))
		case "where":
			return keep(dec.Decode(&f.Where))
		case "instrumented":
			return keep(dec.Decode(&f.Instrumented))
		case "after_checkpoint":
			return keep(dec.Decode(&f.AfterCheckpoint))
		case "snapshot":
			s, err := decodeSnapshot(dec, keep, o)
			f.Snapshot = s
			return err
		case "nodes":
			// A node's reading is decoded whole: nodes are few, and
			// checkReading shares their repeated strings afterwards.
			return keep(dec.Decode(&f.Nodes))
		case "runs":
			isResult = true
		}
		var skip json.RawMessage
		return dec.Decode(&skip)
	})
	if errors.Is(err, errNull) {
		err = nil // json.Unmarshal leaves the struct as it was
	}
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = fmt.Errorf("invalid data after the top-level value")
		}
	}
	if err == nil {
		err = typeErr
	}
	return f, isResult, err
}

// decodeSnapshot reads a snapshot object; null is no snapshot.
func decodeSnapshot(dec *json.Decoder, keep func(error) error, opt readOptions) (*collectors.Snapshot, error) {
	s := &collectors.Snapshot{}
	err := eachField(dec, func(key string) error {
		switch key {
		case "server":
			return keep(dec.Decode(&s.Server))
		case "taken_at":
			return keep(dec.Decode(&s.TakenAt))
		case "scope":
			return keep(dec.Decode(&s.Scope))
		case "marks":
			return keep(dec.Decode(&s.Marks))
		case "missing":
			return keep(dec.Decode(&s.Missing))
		case "statements":
			return keep(dec.Decode(&s.Statements))
		case "counters":
			return eachElement(dec, func() error {
				var c collectors.Counter
				if err := keep(dec.Decode(&c)); err != nil {
					return err
				}
				if s.Counters == nil && opt.counters > 0 {
					s.Counters = make([]collectors.Counter, 0, opt.counters)
				}
				s.Counters = append(s.Counters, opt.strs.counter(c))
				return nil
			}, func() { s.Counters = []collectors.Counter{} })
		case "objects":
			return eachElement(dec, func() error {
				var o collectors.Object
				if err := keep(dec.Decode(&o)); err != nil {
					return err
				}
				if o = opt.strs.object(o); opt.drop == nil || !opt.drop(&o) {
					s.Objects = append(s.Objects, o)
				}
				return nil
			}, func() { s.Objects = []collectors.Object{} })
		}
		var skip json.RawMessage
		return dec.Decode(&skip)
	})
	if errors.Is(err, errNull) {
		return nil, nil
	}
	return s, err
}

// errNull is an object or array that was null.
var errNull = errors.New("null")

// eachField calls field for each key of the object the decoder is at, with
// the decoder at its value, which field must consume. Keys are lower-cased
// (json.Unmarshal matches field names without regard to case).
func eachField(dec *json.Decoder, field func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return errNull
	}
	if tok != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: fmt.Sprint(tok), Type: nil}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if err := field(strings.ToLower(tok.(string))); err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// eachElement calls elem for each element of the array the decoder is at;
// empty is called for an empty array (null leaves the list nil).
func eachElement(dec *json.Decoder, elem func() error, empty func()) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("want an array, got %v", tok)
	}
	n := 0
	for ; dec.More(); n++ {
		if err := elem(); err != nil {
			return err
		}
	}
	if n == 0 {
		empty()
	}
	_, err = dec.Token() // ']'
	return err
}

// stringTable shares the strings counters repeat (a source is the same
// sentence for every index, an object's name and identity the same for each
// of its counters and in both snapshots of a diff): a snapshot of many
// indexes holds each once instead of a copy per counter. A map of the files
// being read rather than unique.Make: that one keeps its own entries for as
// long as the strings live (a noticeable part of a large diff's peak), this
// one goes with the reading.
type stringTable map[string]string

func (t stringTable) str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := t[s]; ok {
		return v
	}
	t[s] = s
	return s
}

func (t stringTable) counter(c collectors.Counter) collectors.Counter {
	c.Level = collectors.Level(t.str(string(c.Level)))
	c.Object = t.str(c.Object)
	c.Metric = t.str(c.Metric)
	c.Exactness = result.Exactness(t.str(string(c.Exactness)))
	c.Source = t.str(c.Source)
	c.Identity = t.str(c.Identity)
	c.Reset = t.str(c.Reset)
	c.Note = t.str(c.Note)
	return c
}

// object shares an object's names with its counters' and the other
// snapshot's.
func (t stringTable) object(o collectors.Object) collectors.Object {
	o.Level = collectors.Level(t.str(string(o.Level)))
	o.Schema = t.str(o.Schema)
	o.Name = t.str(o.Name)
	o.Table = t.str(o.Table)
	o.ID = t.str(o.ID)
	return o
}

// checkReading refuses a file's reading that would diff into wrong numbers.
// Streamed readings share their strings already; a node's (decoded whole)
// shares them here.
func checkReading(path string, f *SnapshotFile, intern bool) error {
	if f.Snapshot != nil && intern {
		internCounters(f.Snapshot.Counters)
	}
	if f.Snapshot == nil || f.Snapshot.TakenAt.IsZero() {
		return fmt.Errorf("%s: damaged snapshot: no reading in it", path)
	}
	for i, c := range f.Snapshot.Counters {
		// Cumulative counters and log positions only grow from zero; a
		// negative one was edited, and would diff into a wrong number.
		if (c.Value < 0 && !c.Gauge) || math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			return fmt.Errorf("%s: damaged snapshot: counters[%d] (%s) is %v: a counter cannot be negative (was the file edited?)", path, i, c.Key, c.Value)
		}
	}
	return nil
}

// internCounters shares the strings counters repeat (a source is the same
// sentence for every index): a 50k-index snapshot holds each once instead of
// 270,000 copies, which the garbage collector frees before the next file.
func internCounters(cs []collectors.Counter) {
	for i := range cs {
		c := &cs[i]
		c.Level = collectors.Level(unique.Make(string(c.Level)).Value())
		c.Metric = unique.Make(c.Metric).Value()
		c.Exactness = result.Exactness(unique.Make(string(c.Exactness)).Value())
		c.Source = unique.Make(c.Source).Value()
		c.Reset = unique.Make(c.Reset).Value()
		c.Note = unique.Make(c.Note).Value()
	}
}
