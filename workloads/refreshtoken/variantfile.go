package refreshtoken

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A variant file (--variant-file, README.md "Variants as files") describes a
// variant beside the built-in ones without Go: a name, the built-in variant
// it starts from, DDL per dialect (replacing the base's, or appended to it),
// and per operation the statements it drops or replaces. It is validated
// before anything connects: unknown keys, dialects, operations and
// statements are refused with the file's line.

// FileVariant is a variant read from --variant-file.
type FileVariant struct {
	Name        string                   `yaml:"name" toml:"name"`
	Base        string                   `yaml:"base" toml:"base"`
	Description string                   `yaml:"description" toml:"description"`
	DDL         map[string]string        `yaml:"ddl" toml:"ddl"`
	DDLAppend   map[string]string        `yaml:"ddl_append" toml:"ddl_append"`
	Operations  map[string]OperationEdit `yaml:"operations" toml:"operations"`
}

// OperationEdit is what a variant changes in one operation's statements.
type OperationEdit struct {
	Drop    []string                 `yaml:"drop" toml:"drop"`
	Replace map[string]StatementEdit `yaml:"replace" toml:"replace"`
}

// StatementEdit replaces a statement's text per dialect (same arguments, in
// the same order) and says which columns the new one updates.
type StatementEdit struct {
	SQL     map[string]string `yaml:"sql" toml:"sql"`
	Columns []string          `yaml:"columns" toml:"columns"`
}

var (
	fileDialects   = []string{"postgres", "mysql", "sqlserver", "oracle"}
	fileOperations = []string{"login", "refresh", "logout"}
	variantName    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,19}$`)
	// OperationStatements are the statements each operation issues (in
	// either built-in variant; operations.go's steps): a file may drop or
	// replace only these under it, so an edit listed under the wrong
	// operation is refused instead of silently doing nothing there.
	OperationStatements = map[string][]string{
		"login": {"rt_select_user_session", "rt_insert_client_session"},
		"refresh": {"rt_lock_user_session_skip_locked", "rt_lock_client_session_skip_locked", "rt_select_user_session",
			"rt_select_client_sessions", "rt_update_user_session", "rt_update_user_session_coarse", "rt_update_client_session"},
		"logout": {"rt_lock_user_session_skip_locked", "rt_lock_client_session_skip_locked", "rt_select_client_sessions",
			"rt_delete_client_session", "rt_lock_user_session", "rt_delete_user_session"},
	}
)

// ReadVariantFile parses and validates a variant file, YAML or TOML by its
// extension.
func ReadVariantFile(path string) (*FileVariant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--variant-file: %w", err)
	}
	var v *FileVariant
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		v, err = ParseVariant(data)
	case ".toml":
		v, err = ParseVariantTOML(data)
	default:
		err = fmt.Errorf("the format is named by the extension: .yaml, .yml or .toml (got %q)", filepath.Ext(path))
	}
	if err != nil {
		return nil, fmt.Errorf("--variant-file %s: %w", path, err)
	}
	return v, nil
}

// ParseVariant decodes a YAML variant file, refusing unknown keys, and checks
// what it names; errors carry the line.
func ParseVariant(data []byte) (*FileVariant, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var v FileVariant
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return checkVariant(&v, func(path ...string) int { return lineOf(&root, path) })
}

// checkVariant validates a decoded file whatever its format; line gives the
// line of the key (or list element, by its index) at a path.
func checkVariant(v *FileVariant, line func(path ...string) int) (*FileVariant, error) {
	at := func(path ...string) string { return fmt.Sprintf("line %d", line(path...)) }
	switch {
	case !variantName.MatchString(v.Name):
		return nil, fmt.Errorf("%s: name must be 1-20 lower-case letters, digits or _ starting with a letter (it names the variant's schema; got %q)", at("name"), v.Name)
	case slices.Contains(Variants, v.Name):
		return nil, fmt.Errorf("%s: name %q is a built-in variant", at("name"), v.Name)
	case !slices.Contains(Variants, v.Base):
		return nil, fmt.Errorf("%s: base must be one of %s (got %q)", at("base"), strings.Join(Variants, ", "), v.Base)
	}
	for _, m := range []struct {
		key string
		ddl map[string]string
	}{{"ddl", v.DDL}, {"ddl_append", v.DDLAppend}} {
		for _, d := range sortedKeys(m.ddl) {
			if !slices.Contains(fileDialects, d) {
				return nil, fmt.Errorf("%s: %s: unknown dialect %q (known: %s)", at(m.key, d), m.key, d, strings.Join(fileDialects, ", "))
			}
		}
	}
	for _, op := range sortedKeys(v.Operations) {
		if !slices.Contains(fileOperations, op) {
			return nil, fmt.Errorf("%s: operations: unknown operation %q (known: %s)", at("operations", op), op, strings.Join(fileOperations, ", "))
		}
		e := v.Operations[op]
		for i, s := range e.Drop {
			where := at("operations", op, "drop", strconv.Itoa(i))
			if err := belongs(where, op, "drop", s); err != nil {
				return nil, err
			}
		}
		for _, s := range sortedKeys(e.Replace) {
			if err := belongs(at("operations", op, "replace", s), op, "replace", s); err != nil {
				return nil, err
			}
			for _, d := range sortedKeys(e.Replace[s].SQL) {
				if !slices.Contains(fileDialects, d) {
					return nil, fmt.Errorf("%s: unknown dialect %q (known: %s)", at("operations", op, "replace", s, "sql", d), d, strings.Join(fileDialects, ", "))
				}
			}
		}
	}
	return v, nil
}

// belongs refuses a statement that is not one of the workload's, or not one
// the operation it is listed under issues.
func belongs(where, op, edit, s string) error {
	if !slices.Contains(StatementNames, s) {
		return fmt.Errorf("%s: operations.%s.%s: unknown statement %q (known: %s)", where, op, edit, s, strings.Join(StatementNames, ", "))
	}
	if !slices.Contains(OperationStatements[op], s) {
		return fmt.Errorf("%s: operations.%s.%s: %s is not a statement of %s (it issues %s)", where, op, edit, s, op, strings.Join(OperationStatements[op], ", "))
	}
	return nil
}

// lineOf is the line of the key at path in a decoded document (the nearest
// one found).
func lineOf(n *yaml.Node, path []string) int {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, key := range path {
		if n.Kind == yaml.SequenceNode {
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fileVariant is the variant file's variant when it is the current one.
func (w *Workload) fileVariant() *FileVariant {
	if w.file != nil && w.variant == w.file.Name {
		return w.file
	}
	return nil
}

// loadVariantFile reads --variant-file once.
func (w *Workload) loadVariantFile() error {
	if w.P.VariantFile == "" || w.file != nil {
		return nil
	}
	v, err := ReadVariantFile(w.P.VariantFile)
	if err != nil {
		return err
	}
	w.file = v
	return nil
}

// variantDDL is the DDL of the file's variant on this dialect.
func (w *Workload) variantDDL(base string) (string, error) {
	v, d := w.fileVariant(), w.target.Server.Dialect
	if v == nil {
		return base, nil
	}
	if own, ok := v.DDL[d]; ok {
		return Render(own, w.Schema(), w.P), nil
	}
	if len(v.DDL) > 0 {
		return "", fmt.Errorf("variant %s (--variant-file) has DDL for %s but none for %s", v.Name, strings.Join(sortedKeys(v.DDL), ", "), d)
	}
	if extra, ok := v.DDLAppend[d]; ok {
		return base + ";\n" + Render(extra, w.Schema(), w.P), nil
	}
	return base, nil
}

// applyEdits replaces the statements the file's variant replaces.
func (w *Workload) applyEdits(t texts) error {
	v, d := w.fileVariant(), w.target.Server.Dialect
	if v == nil {
		return nil
	}
	for _, op := range sortedKeys(v.Operations) {
		for _, name := range sortedKeys(v.Operations[op].Replace) {
			text, ok := v.Operations[op].Replace[name].SQL[d]
			if !ok {
				return fmt.Errorf("variant %s (--variant-file) replaces %s but has no text for %s", v.Name, name, d)
			}
			t[name] = Render(text, w.Schema(), w.P)
		}
	}
	return nil
}

// dropped says whether the current variant drops a statement from an operation.
func (w *Workload) dropped(op opKind, name string) bool {
	v := w.fileVariant()
	return v != nil && slices.Contains(v.Operations[op.String()].Drop, name)
}

// editedColumns are the columns a replaced statement updates, if the file says.
func (w *Workload) editedColumns(name string) ([]string, bool) {
	v := w.fileVariant()
	if v == nil {
		return nil, false
	}
	for _, e := range v.Operations {
		if r, ok := e.Replace[name]; ok && len(r.Columns) > 0 {
			return r.Columns, true
		}
	}
	return nil, false
}
