package main

// docs/performance.md holds the bench's figures: one block per group,
// between a line `<!-- bench:NAME -->` and a line `<!-- /bench:NAME -->`,
// written by the bench and nothing else. Everything outside the blocks is
// the hand-written reference and is copied byte for byte.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// benchRow is a row as docs/performance.md shows it.
type benchRow struct {
	What, Writeamp, Peer, Ratio, Spread, Target, Verdict string
}

// measured is one group's run: its rows and what it was measured on.
type measured struct {
	group          string
	rows           []benchRow
	at             time.Time
	took           time.Duration
	server         string
	cores          int
	load0, load1   string // 1-minute load average at the group's start and end
	command, sizes string // the bench's flags as given; the group's sizes
	failed         string // why the group measured nothing (it keeps its block)
}

// benchRun collects the groups of this run for docs/performance.md.
type benchRun struct {
	server  string
	cores   int
	command string
	t       *progressTable

	mu   sync.Mutex
	done []measured
	cur  *measured
}

func (r *benchRun) begin(g group) {
	var sizes []string
	for _, name := range g.flags {
		sizes = append(sizes, "-"+name+" "+flag.Lookup(name).Value.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.rows = nil
	r.cur = &measured{group: g.name, at: time.Now(), server: r.server, cores: r.cores, load0: loadAvg(), command: r.command, sizes: strings.Join(sizes, " ")}
}

// end closes the current group; one that measured no row failed (its
// rows' functions said why on stderr).
func (r *benchRun) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.cur
	r.cur = nil
	m.rows, m.took, m.load1 = r.t.rows, time.Since(m.at), loadAvg()
	if len(m.rows) == 0 {
		m.failed = "it measured no row (see the messages above)"
		fmt.Fprintf(os.Stderr, "bench: group %s failed: %s\n", m.group, m.failed)
	}
	r.done = append(r.done, *m)
}

// fail ends the run during the current group (fatal): the groups measured
// before it are written.
func (r *benchRun) fail(why string) {
	r.mu.Lock()
	if r.cur != nil {
		r.cur.failed = why
		r.done = append(r.done, *r.cur)
		r.cur = nil
	}
	r.mu.Unlock()
	r.write()
}

// write rewrites the blocks of the groups measured in -write's file and
// returns the groups that failed, whose blocks keep their last figures.
func (r *benchRun) write() (failed []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	blocks := map[string]string{}
	var wrote []string
	for _, m := range r.done {
		if m.failed != "" {
			failed = append(failed, m.group)
			fmt.Fprintf(os.Stderr, "bench: group %s failed (%s): its block keeps its last figures\n", m.group, m.failed)
			continue
		}
		blocks[m.group] = renderBlock(m)
		wrote = append(wrote, m.group)
	}
	if *write == "" {
		return failed
	}
	if len(blocks) == 0 {
		fmt.Fprintf(os.Stderr, "bench: %s not rewritten: no group measured\n", *write)
		return failed
	}
	if err := writeDoc(*write, groupNames(), blocks); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s not rewritten: %v\n", *write, err)
		return append(failed, "writing "+*write)
	}
	fmt.Fprintf(os.Stderr, "bench: %s: rewrote the blocks of %s\n", *write, strings.Join(wrote, ", "))
	return failed
}

// commandLine is the bench's command line as given, without the flags that
// name this machine's server, binary or file.
func commandLine() string {
	args := []string{"go run ./cmd/writeamp-bench"}
	if *only != "" {
		args = append(args, "-only "+*only)
	}
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "dsn", "writeamp", "write", "only":
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			args = append(args, "-"+f.Name)
			return
		}
		args = append(args, "-"+f.Name+" "+f.Value.String())
	})
	return strings.Join(args, " ")
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// notMeasured is the block of a group never measured.
func notMeasured(group string) string {
	return "not measured yet: make bench (or go run ./cmd/writeamp-bench -only " + group + ")\n"
}

// renderBlock is a group's block (between its markers): the line saying
// when, on what and how it was measured, then its rows.
func renderBlock(m measured) string {
	var b strings.Builder
	how := "`" + m.command + "`"
	if m.sizes != "" {
		how += " (this group's sizes: `" + m.sizes + "`)"
	}
	fmt.Fprintf(&b, "Measured %s on %s, %d cores, load average %s at the start and %s at the end (1 min), by %s, in %s.\n\n",
		m.at.UTC().Format("2006-01-02 15:04 UTC"), m.server, m.cores, m.load0, m.load1, how, roundDuration(m.took))
	b.WriteString("| row | writeamp | peer | ratio | target | verdict |\n|---|---|---|---|---|---|\n")
	for _, r := range m.rows {
		ratio := r.Ratio
		if r.Spread != "" {
			ratio += " (" + r.Spread + ")"
		}
		cells := []string{r.What, r.Writeamp, r.Peer, ratio, r.Target, r.Verdict}
		for i, c := range cells {
			cells[i] = strings.NewReplacer("|", `\|`, "\n", " ").Replace(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

func roundDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// block is where a group's block stands in the file: its open marker's
// line starts at start, its body is [body, close), its close marker's line
// ends at end (after its newline).
type block struct {
	group                   string
	start, body, close, end int
}

var markerLine = regexp.MustCompile(`^<!-- (/?)bench:([a-z0-9-]+) -->$`)

// parseBlocks finds the blocks of doc; markers out of pairs, nested,
// repeated or of an unknown group are an error.
func parseBlocks(doc string, order []string) ([]block, error) {
	var blocks []block
	var open *block
	seen := map[string]bool{}
	lineNo := 0
	for off := 0; off < len(doc); {
		lineNo++
		end := strings.IndexByte(doc[off:], '\n')
		next := len(doc)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(doc)
		}
		line := strings.TrimSpace(doc[off:end])
		if strings.HasPrefix(line, "<!-- bench:") || strings.HasPrefix(line, "<!-- /bench:") {
			m := markerLine.FindStringSubmatch(line)
			switch {
			case m == nil:
				return nil, fmt.Errorf("line %d: malformed marker %q (want <!-- bench:GROUP --> or <!-- /bench:GROUP -->)", lineNo, line)
			case !slices.Contains(order, m[2]):
				return nil, fmt.Errorf("line %d: marker of an unknown group %q (groups: %s)", lineNo, m[2], strings.Join(order, ", "))
			case m[1] == "" && open != nil:
				return nil, fmt.Errorf("line %d: %s opened inside the block of %s, which is not closed", lineNo, m[2], open.group)
			case m[1] == "" && seen[m[2]]:
				return nil, fmt.Errorf("line %d: a second block of %s", lineNo, m[2])
			case m[1] == "":
				seen[m[2]] = true
				open = &block{group: m[2], start: off, body: next}
			case open == nil || open.group != m[2]:
				return nil, fmt.Errorf("line %d: %s closed, but not open", lineNo, m[2])
			default:
				open.close, open.end = off, next
				blocks = append(blocks, *open)
				open = nil
			}
		}
		off = next
	}
	if open != nil {
		return nil, fmt.Errorf("the block of %s is not closed", open.group)
	}
	return blocks, nil
}

// setBlocks returns doc with each given group's block body replaced, and a
// block added for every group that has none (its body given, or the
// placeholder), in the groups' order: after the block of the nearest
// group before it, else before the block of the nearest after it, else at
// the end. The text outside the blocks is kept byte for byte.
func setBlocks(doc string, order []string, bodies map[string]string) (string, error) {
	if _, err := parseBlocks(doc, order); err != nil {
		return "", err
	}
	for name := range bodies {
		if !slices.Contains(order, name) {
			return "", fmt.Errorf("no group %q", name)
		}
	}
	for i, name := range order {
		blocks, err := parseBlocks(doc, order)
		if err != nil {
			return "", err
		}
		at := map[string]block{}
		for _, b := range blocks {
			at[b.group] = b
		}
		body, given := bodies[name]
		if b, ok := at[name]; ok {
			if given {
				doc = doc[:b.body] + body + doc[b.close:]
			}
			continue
		}
		if !given {
			body = notMeasured(name)
		}
		text := "<!-- bench:" + name + " -->\n" + body + "<!-- /bench:" + name + " -->\n"
		placed := false
		for j := i - 1; j >= 0 && !placed; j-- {
			if b, ok := at[order[j]]; ok {
				doc, placed = doc[:b.end]+"\n"+text+doc[b.end:], true
			}
		}
		for j := i + 1; j < len(order) && !placed; j++ {
			if b, ok := at[order[j]]; ok {
				doc, placed = doc[:b.start]+text+"\n"+doc[b.start:], true
			}
		}
		if !placed {
			if doc != "" && !strings.HasSuffix(doc, "\n") {
				doc += "\n"
			}
			if doc != "" {
				doc += "\n"
			}
			doc += text
		}
	}
	return doc, nil
}

// readDoc reads the file and checks its markers; a missing file is empty.
func readDoc(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if _, err := parseBlocks(string(b), groupNames()); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(b), nil
}

// writeDoc rewrites the given groups' blocks of the file (read again now:
// it may have been edited while the bench ran), through a temporary file
// renamed over it, so a failed write leaves it as it was.
func writeDoc(path string, order []string, bodies map[string]string) error {
	old, err := readDoc(path)
	if err != nil {
		return err
	}
	doc, err := setBlocks(old, order, bodies)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bench-*.md")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(doc); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
