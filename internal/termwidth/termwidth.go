package termwidth

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/text"
	"golang.org/x/term"
)

// Of is the width a report written to f fits: the terminal's when f is
// one, else $COLUMNS when set (a report redirected to a file or a pipe is
// still often read in a terminal of that width), else 0 (unbounded).
func Of(f *os.File) int {
	if f != nil {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return FromEnv()
}

// FromEnv is $COLUMNS as a width, 0 when unset or not a positive number.
func FromEnv() int {
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS")))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// Width is how many columns s takes on one line. Both counts are taken,
// the larger kept: awk and most readers count characters, a terminal
// counts cells (an east-Asian locale makes "—" two of them).
func Width(s string) int {
	s = text.StripEscape(s)
	return max(utf8.RuneCountInString(s), text.StringWidthWithoutEscSequences(s))
}

// Widest is the width of the widest line of s.
func Widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, Width(l))
	}
	return n
}

// Wrap word-wraps s to width: the first line starts with first, the rest
// with hang (a hanging indent). A word longer than a line is cut; width
// <= 0 leaves s on one line. Runs of spaces between words become one.
func Wrap(s string, width int, first, hang string) []string {
	if width <= 0 || Width(first+s) <= width && !strings.Contains(s, "\n") {
		return []string{first + s}
	}
	// An indent wider than half the line leaves too little room to wrap in.
	if Width(first) > width/2 {
		first = ""
	}
	if Width(hang) > width/2 {
		hang = ""
	}
	var out []string
	line, empty := first, true
	room := func() int { return width - Width(line) }
	flush := func() {
		out = append(out, strings.TrimRight(line, " "))
		line, empty = hang, true
	}
	for _, w := range strings.Fields(s) {
		sep := " "
		if empty {
			sep = ""
		}
		if Width(sep+w) <= room() {
			line += sep + w
			empty = false
			continue
		}
		if !empty {
			flush()
		}
		// A word wider than a whole line: cut it where the line ends.
		for Width(w) > room() {
			cut := cutAt(w, room())
			line += w[:cut]
			w = w[cut:]
			flush()
		}
		if w != "" {
			line += w
			empty = false
		}
	}
	if !empty || len(out) == 0 {
		flush()
	}
	return out
}

// cutAt is the byte offset of the longest prefix of s at most n wide (at
// least one rune, so a cut always advances).
func cutAt(s string, n int) int {
	end := 0
	for i, r := range s {
		if i > 0 && Width(s[:i+utf8.RuneLen(r)]) > n {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	return end
}

// Writer wraps every line written through it to width, each continuation
// indented two more than the line's own indent. Tables do not go through
// it (Grid fits them); prose does. Width <= 0 passes text through.
type Writer struct {
	w     io.Writer
	width int
	buf   bytes.Buffer
}

// NewWriter wraps w's lines to width.
func NewWriter(w io.Writer, width int) *Writer { return &Writer{w: w, width: width} }

func (x *Writer) Write(p []byte) (int, error) {
	if x.width <= 0 {
		return x.w.Write(p)
	}
	x.buf.Write(p)
	for {
		i := bytes.IndexByte(x.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(x.buf.Next(i + 1))
		if _, err := io.WriteString(x.w, FitLine(strings.TrimSuffix(line, "\n"), x.width)+"\n"); err != nil {
			return 0, err
		}
	}
}

// Flush writes a last line that had no newline.
func (x *Writer) Flush() error {
	if x.buf.Len() == 0 {
		return nil
	}
	_, err := io.WriteString(x.w, FitLine(x.buf.String(), x.width))
	x.buf.Reset()
	return err
}

// FitLine wraps one line of prose to width, keeping its indent and
// indenting what wraps two more (lines joined by "\n").
func FitLine(line string, width int) string {
	if width <= 0 || Width(line) <= width {
		return line
	}
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	hang := indent + "  "
	// A list item's text hangs under its first word: "  - x", "  1. x".
	if f := strings.SplitN(body, " ", 2); len(f) == 2 && (f[0] == "-" || f[0] == "!" || isNumbered(f[0])) {
		hang = indent + strings.Repeat(" ", Width(f[0])+1)
	}
	if Width(hang) > width/2 {
		hang = "  "
	}
	return strings.Join(Wrap(body, width, indent, hang), "\n")
}

func isNumbered(s string) bool {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "."))
	return err == nil && n >= 0 && strings.HasSuffix(s, ".")
}
