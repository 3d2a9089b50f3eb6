package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/writeamp/writeamp/result"
)

// writeIndented writes v as json.Encoder with SetIndent("", "  ") would, but
// without building the whole document in memory: a diff of two snapshots of
// many indexes is a large JSON document, and the encoder held it compact,
// then indented, then the caller copied it into its own buffer (three copies
// at once). Here each run and each of its tables and indexes is marshalled on its
// own and written before the next; the small rest of the document goes
// through encoding/json whole. The bytes are the encoder's
// (TestStreamedJSONIsTheEncodersBytes).
func writeIndented(w io.Writer, res *result.Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := streamResult(bw, res); err != nil {
		return err
	}
	return bw.Flush()
}

func streamResult(w *bufio.Writer, res *result.Result) error {
	if len(res.Runs) == 0 {
		return encodeIndented(w, res, "")
	}
	head := *res
	head.Runs = nil
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	// A string value's quotes are escaped, so an unescaped `"runs": null` at
	// the top level's indent can only be the field itself.
	before, after, ok := bytes.Cut(b, []byte("\n  \"runs\": null"))
	if !ok {
		return fmt.Errorf("json: runs field not found in the result's encoding")
	}
	w.Write(before)
	w.WriteString("\n  \"runs\": [")
	for i := range res.Runs {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		if err := streamRun(w, &res.Runs[i]); err != nil {
			return err
		}
	}
	w.WriteString("\n  ]")
	w.Write(after)
	return w.WriteByte('\n')
}

// streamRun writes one run at the runs array's indent; its tables and
// indexes, the bulk of a large result, one object at a time.
func streamRun(w *bufio.Writer, run *result.Run) error {
	r := *run
	lists := []struct {
		field string
		objs  []result.Object
	}{{"tables", run.Tables}, {"indexes", run.Indexes}}
	for _, l := range lists {
		if len(l.objs) > 0 {
			switch l.field {
			case "tables":
				r.Tables = nil
			case "indexes":
				r.Indexes = nil
			}
		}
	}
	b, err := json.MarshalIndent(&r, "    ", "  ")
	if err != nil {
		return err
	}
	for _, l := range lists {
		if len(l.objs) == 0 {
			continue
		}
		// The run's own fields are the only ones at this indent.
		before, after, ok := bytes.Cut(b, []byte("\n      \""+l.field+"\": null"))
		if !ok {
			return fmt.Errorf("json: %s field not found in the run's encoding", l.field)
		}
		w.Write(before)
		w.WriteString("\n      \"" + l.field + "\": [")
		for i := range l.objs {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString("\n        ")
			ob, err := json.MarshalIndent(&l.objs[i], "        ", "  ")
			if err != nil {
				return err
			}
			w.Write(ob)
		}
		w.WriteString("\n      ]")
		b = after
	}
	_, err = w.Write(b)
	return err
}

func encodeIndented(w io.Writer, v any, prefix string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	return enc.Encode(v)
}
