package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/writeamp/writeamp/budget"
)

// Names are the file names looked for, in each directory.
var Names = []string{"writeamp.yaml", ".writeamp.yaml"}

// File is a parsed config file. Paths in it are relative to its directory
// (Dir); Resolve makes them usable from the working directory.
type File struct {
	Path string `yaml:"-"`
	Dir  string `yaml:"-"`
	// DSNEnv names the environment variable holding the database URL.
	DSNEnv    string   `yaml:"dsn_env,omitempty"`
	Migration []string `yaml:"migration,omitempty"`
	Schema    []string `yaml:"schema,omitempty"`
	// Workload is a shell command line run by bash before and after the
	// migration (as -- bash -c WORKLOAD); empty: the built-in workload.
	Workload string   `yaml:"workload,omitempty"`
	Repeat   int      `yaml:"repeat,omitempty"`
	Budgets  []Budget `yaml:"budgets,omitempty"`
	Allow    []Allow  `yaml:"allow,omitempty"`
}

// Budget is one budget, for the migrations matching Paths (every one
// when empty); an advisory budget reports without failing the check.
type Budget struct {
	Budget   string   `yaml:"budget"`
	Paths    []string `yaml:"paths,omitempty"`
	Advisory bool     `yaml:"advisory,omitempty"`
	Line     int      `yaml:"-"`
}

// Allow is a suppression: rule silenced for the migration files matching
// Path, for the stated Reason.
type Allow struct {
	Rule   string `yaml:"rule"`
	Path   string `yaml:"path"`
	Reason string `yaml:"reason"`
	Line   int    `yaml:"-"`
}

// Find looks for a config file from dir up to the repository root (the
// first directory holding .git) or the filesystem root; "" when none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		for _, n := range Names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return "", nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// Load reads and validates a config file. Every error names the file and
// the line; a key the file format does not have is an error (a misspelt
// key would otherwise be a setting silently not applied).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	f := &File{Path: path, Dir: filepath.Dir(path)}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) { // an empty file is no settings
		return nil, fmt.Errorf("%s", yamlError(path, err))
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return f, nil
}

var (
	lineRe    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownRe = regexp.MustCompile(`^field (\S+) not found in type config\.File$`)
	topKeys   = "dsn_env, migration, schema, workload, repeat, budgets, allow"
)

// yamlError says each of the decoder's errors as path:line: what.
func yamlError(path string, err error) string {
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "yaml: unmarshal errors:" {
			continue
		}
		if m := lineRe.FindStringSubmatch(l); m != nil {
			what := m[2]
			if u := unknownRe.FindStringSubmatch(what); u != nil {
				what = fmt.Sprintf("unknown key %q (known: %s)", u[1], topKeys)
			}
			l = m[1] + ": " + what
		}
		out = append(out, path+":"+l)
	}
	return strings.Join(out, "\n")
}

// UnmarshalYAML keeps the entry's line and refuses keys it does not have
// (KnownFields does not reach a custom unmarshaller).
func (b *Budget) UnmarshalYAML(n *yaml.Node) error {
	if err := knownKeys(n, "budget", "paths", "advisory"); err != nil {
		return err
	}
	type plain Budget
	b.Line = n.Line
	return n.Decode((*plain)(b))
}

func (a *Allow) UnmarshalYAML(n *yaml.Node) error {
	if err := knownKeys(n, "rule", "path", "reason"); err != nil {
		return err
	}
	type plain Allow
	a.Line = n.Line
	return n.Decode((*plain)(a))
}

func knownKeys(n *yaml.Node, known ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping (%s)", n.Line, strings.Join(known, ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(known, k.Value) {
			return fmt.Errorf("line %d: unknown key %q (known: %s)", k.Line, k.Value, strings.Join(known, ", "))
		}
	}
	return nil
}

// Rules are the rules an allow entry may name (check.SuppressibleRules;
// kept here so config does not import check).
var Rules = []string{"index-on-updated-column"}

func (f *File) validate() error {
	if f.DSNEnv != "" && !envName(f.DSNEnv) {
		return fmt.Errorf(" dsn_env %q: the name of an environment variable (e.g. WRITEAMP_DSN), never the URL itself", f.DSNEnv)
	}
	if f.Repeat < 0 {
		return fmt.Errorf(" repeat %d: at least 1", f.Repeat)
	}
	for _, b := range f.Budgets {
		if _, err := budget.Parse(b.Budget); err != nil {
			return fmt.Errorf("%d: budgets: %w", b.Line, err)
		}
		for _, p := range b.Paths {
			if _, err := filepath.Match(p, ""); err != nil {
				return fmt.Errorf("%d: budgets: paths %q: %w", b.Line, p, err)
			}
		}
	}
	for _, a := range f.Allow {
		switch {
		case !slices.Contains(Rules, a.Rule):
			return fmt.Errorf("%d: allow: rule %q unknown (known: %s)", a.Line, a.Rule, strings.Join(Rules, ", "))
		case strings.TrimSpace(a.Path) == "":
			return fmt.Errorf("%d: allow: %s needs path: the migration files (a glob) it is allowed in", a.Line, a.Rule)
		case strings.TrimSpace(a.Reason) == "":
			return fmt.Errorf("%d: allow: %s has no reason: say why it is safe (reason: \"…\")", a.Line, a.Rule)
		}
		if _, err := filepath.Match(a.Path, ""); err != nil {
			return fmt.Errorf("%d: allow: path %q: %w", a.Line, a.Path, err)
		}
	}
	return nil
}

func envName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// Rel resolves a path of the file against its directory.
func (f *File) Rel(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(f.Dir, p)
}

// Matches reports whether a migration file matches a glob of the file
// (relative to its directory; a glob without / matches the base name).
func (f *File) Matches(glob, file string) bool {
	abs, _ := filepath.Abs(file)
	if !strings.Contains(glob, "/") {
		ok, _ := filepath.Match(glob, filepath.Base(file))
		return ok
	}
	ok, _ := filepath.Match(filepath.Join(f.Dir, glob), abs)
	return ok
}

// BudgetsFor are the budgets that apply to these migration files: those
// without paths, and those with a path some file matches.
func (f *File) BudgetsFor(files []string) (enforced, advisory []string) {
	for _, b := range f.Budgets {
		applies := len(b.Paths) == 0
		for _, g := range b.Paths {
			for _, m := range files {
				applies = applies || f.Matches(g, m)
			}
		}
		switch {
		case !applies:
		case b.Advisory:
			advisory = append(advisory, b.Budget)
		default:
			enforced = append(enforced, b.Budget)
		}
	}
	return enforced, advisory
}
