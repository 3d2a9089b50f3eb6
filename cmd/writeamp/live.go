package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// intervalFlag is --interval of measure and run.
func intervalFlag(f *pflag.FlagSet, d *time.Duration) {
	f.DurationVar(d, "interval", 0, "also sample whole-server counters every interval (1s or more): rates over time")
}

// timelineFor is the observer measure and run add to their window: with
// --interval the stored samples, and on a terminal (measure only) the live
// line, each second when --interval is not given. nil when neither.
func timelineFor(every time.Duration, live *liveLine) *measure.Timeline {
	t := &measure.Timeline{Every: every, Keep: every > 0}
	if live != nil {
		t.Live = live.update
		if every == 0 {
			t.Every = time.Second
		}
	}
	if !t.Keep && t.Live == nil {
		return nil
	}
	return t
}

// liveLine is measure's one-line status on a terminal: the current log and
// row rates, redrawn in place after each reading and cleared at the end.
// It exists only when stderr is a terminal and notes are not --quiet, so
// no control character reaches a file, a pipe or a CI log.
type liveLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

// newLiveLine returns nil unless w is a terminal (tty) and not quiet.
func newLiveLine(w io.Writer, tty, quiet bool) *liveLine {
	if !tty || quiet {
		return nil
	}
	return &liveLine{w: w}
}

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[2K"

func (l *liveLine) update(s *result.Samples) {
	text := liveText(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.w, clearLine+text)
	l.shown = true
}

// clear removes the line, so the report and notes start on a clean line.
func (l *liveLine) clear() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, clearLine)
		l.shown = false
	}
}

// liveText is the line: the time into the window, the log rate and the
// rows changed per second over the last interval ("~" marks a rate that
// rests on statistics sessions publish late), and commits where sampled.
func liveText(s *result.Samples) string {
	if len(s.Points) == 0 {
		return "measuring"
	}
	p := s.Points[len(s.Points)-1]
	parts := []string{fmt.Sprintf("measuring %s", time.Duration(p.T*float64(time.Second)).Round(time.Second))}
	rate := func(label, name string, unit result.Unit, approx bool) {
		v, ok := p.Rate(name)
		switch {
		case !ok && len(s.Points) == 1:
			parts = append(parts, label+" …")
		case ok:
			mark := ""
			if approx {
				mark = "~"
			}
			parts = append(parts, label+" "+mark+result.FormatRate(unit, v))
		}
	}
	if ls, ok := s.Lookup("log_bytes"); ok {
		rate("log", "log_bytes", result.Bytes, ls.Exactness != result.Exact)
	}
	if s.HasRows() {
		rs, _ := s.Lookup("rows_inserted")
		rate("rows", result.RowsChanged, result.Count, rs.Exactness != result.Exact)
	}
	if cs, ok := s.Lookup("transactions_committed"); ok {
		rate("commits", "transactions_committed", result.Count, cs.Exactness != result.Exact)
	}
	return strings.Join(parts, " · ")
}
