package queries

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed postgres/*.sql mysql/*.sql sqlserver/*.sql oracle/*.sql
var files embed.FS

// Block is one named query.
type Block struct {
	Dialect    string
	Name       string
	File       string
	MinVersion int // inclusive, 0 = any
	MaxVersion int // exclusive, 0 = any
	// Meta are the variant's "-- source:", "-- exactness:" and "-- note:"
	// headers: what the numbers it reads are, as the collector reports them.
	Meta map[string]string
	SQL  string
}

// metaKeys are the headers Parse keeps in Block.Meta.
var metaKeys = []string{"source", "exactness", "note"}

// Applies reports whether the block is meant for the version number.
func (b Block) Applies(v int) bool {
	return (b.MinVersion == 0 || v >= b.MinVersion) && (b.MaxVersion == 0 || v < b.MaxVersion)
}

var (
	once   sync.Once
	blocks map[string][]Block // key dialect/name
	perr   error
)

func load() {
	blocks = map[string][]Block{}
	perr = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		bs, err := Parse(path.Dir(p), p, string(data))
		if err != nil {
			return err
		}
		for _, b := range bs {
			k := b.Dialect + "/" + b.Name
			blocks[k] = append(blocks[k], b)
		}
		return nil
	})
	if perr == nil {
		perr = expandIncludes(blocks)
	}
}

// expandIncludes puts the text of block NAME (the same dialect's) where a
// block says {{block:NAME}}: two queries that read the same rows the same
// way share that reading instead of two copies that can drift apart. The
// included block must have exactly one variant for every version the
// including one serves; it is a query of its own too (Get returns it).
func expandIncludes(blocks map[string][]Block) error {
	const open, end = "{{block:", "}}"
	// Read before any is expanded: whether a block includes another does
	// not depend on the order the map gives.
	including := map[string]bool{}
	for k, bs := range blocks {
		for _, b := range bs {
			including[k] = including[k] || strings.Contains(b.SQL, open)
		}
	}
	for _, bs := range blocks {
		for i := range bs {
			b := &bs[i]
			for {
				at := strings.Index(b.SQL, open)
				if at < 0 {
					break
				}
				n := strings.Index(b.SQL[at:], end)
				if n < 0 {
					return fmt.Errorf("%s: block %s: %s without %s", b.File, b.Name, open, end)
				}
				name := b.SQL[at+len(open) : at+n]
				var got []Block
				for _, f := range blocks[b.Dialect+"/"+name] {
					if covers(f, *b) {
						got = append(got, f)
					}
				}
				if len(got) != 1 || including[b.Dialect+"/"+name] {
					return fmt.Errorf("%s: block %s includes %s, which needs exactly one variant for every version %s serves (found %d) and no include of its own", b.File, b.Name, name, b.Name, len(got))
				}
				b.SQL = b.SQL[:at] + got[0].SQL + b.SQL[at+n+len(end):]
			}
		}
	}
	return nil
}

// covers is whether f serves every version b does.
func covers(f, b Block) bool {
	lo := f.MinVersion == 0 || b.MinVersion >= f.MinVersion
	hi := f.MaxVersion == 0 || b.MaxVersion != 0 && b.MaxVersion <= f.MaxVersion
	return lo && hi
}

// Parse splits one file's text into blocks.
func Parse(dialect, file, text string) ([]Block, error) {
	var out []Block
	var cur *Block
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.SQL = strings.TrimSpace(body.String())
			out = append(out, *cur)
		}
		body.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	// A line may be as long as 1 MB, but a buffer that size made up front for
	// each embedded file was a lot to allocate and clear at every start-up.
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		t := strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(t, "-- name:"); ok {
			flush()
			cur = &Block{Dialect: dialect, File: file, Name: strings.TrimSpace(rest)}
			continue
		}
		if cur != nil && body.Len() == 0 && strings.HasPrefix(t, "--") {
			if rest, ok := strings.CutPrefix(t, "-- min_version:"); ok {
				v, err := strconv.Atoi(strings.TrimSpace(rest))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad min_version: %w", file, line, err)
				}
				cur.MinVersion = v
				continue
			}
			if rest, ok := strings.CutPrefix(t, "-- max_version:"); ok {
				v, err := strconv.Atoi(strings.TrimSpace(rest))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad max_version: %w", file, line, err)
				}
				cur.MaxVersion = v
				continue
			}
			for _, k := range metaKeys {
				if rest, ok := strings.CutPrefix(t, "-- "+k+":"); ok {
					if cur.Meta == nil {
						cur.Meta = map[string]string{}
					}
					cur.Meta[k] = strings.TrimSpace(rest)
				}
			}
			continue // a comment before the statement documents the block, it is not sent
		}
		if cur == nil {
			continue // file header comments
		}
		body.WriteString(l)
		body.WriteByte('\n')
	}
	flush()
	return out, sc.Err()
}

// Get returns the SQL text of the named block for the server version.
func Get(dialect, name string, version int) (string, error) {
	b, err := Variant(dialect, name, version)
	return b.SQL, err
}

// Variant returns the named block's variant for the server version. A block
// that does not exist, or has no variant for the version, is a
// *MissingError: the caller records it (a collector's Missing, a refused
// start) instead of sending nothing.
func Variant(dialect, name string, version int) (Block, error) {
	once.Do(load)
	if perr != nil {
		return Block{}, perr
	}
	bs := blocks[dialect+"/"+name]
	if len(bs) == 0 {
		return Block{}, &MissingError{Dialect: dialect, Name: name, Version: version, NoBlock: true}
	}
	for _, b := range bs {
		if b.Applies(version) {
			return b, nil
		}
	}
	return Block{}, &MissingError{Dialect: dialect, Name: name, Version: version}
}

// MissingError is a lookup of a block that has no variant for the server's
// version (NoBlock: none for any version).
type MissingError struct {
	Dialect, Name string
	Version       int
	NoBlock       bool
}

func (e *MissingError) Error() string {
	if e.NoBlock {
		return fmt.Sprintf("queries: no block %q for %s", e.Name, e.Dialect)
	}
	return fmt.Sprintf("queries: block %q for %s has no variant for version %d", e.Name, e.Dialect, e.Version)
}

// All lists every block, for tests that check each query is covered.
func All() []Block {
	once.Do(load)
	var out []Block
	for _, bs := range blocks {
		out = append(out, bs...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dialect != out[j].Dialect {
			return out[i].Dialect < out[j].Dialect
		}
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].MinVersion < out[j].MinVersion
	})
	return out
}

// LoadError reports a parse error in the embedded files.
func LoadError() error { once.Do(load); return perr }
