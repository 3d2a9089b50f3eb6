package collectors

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// MarshalJSON writes the same bytes encoding/json would (a test holds it to
// that), but appends the counters and objects by hand: a snapshot of 10,000
// indexes holds some 40,000 counters, and reflecting over them took longer
// than reading them from the server.
func (s *Snapshot) MarshalJSON() ([]byte, error) {
	return s.AppendJSON(make([]byte, 0, 64+200*len(s.Counters)+160*len(s.Objects)))
}

// AppendJSON appends the snapshot's JSON to b.
func (s *Snapshot) AppendJSON(b []byte) ([]byte, error) {
	// The small fields go through encoding/json: their shape may grow.
	head := struct {
		Server  any `json:"server"`
		TakenAt any `json:"taken_at"`
		Scope   any `json:"scope"`
	}{s.Server, s.TakenAt, s.Scope}
	h, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	b = append(b, h[:len(h)-1]...)
	b = append(b, `,"counters":`...)
	if s.Counters == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Counters {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendCounter(b, &s.Counters[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if len(s.Objects) > 0 {
		b = append(b, `,"objects":[`...)
		for i := range s.Objects {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendObject(b, &s.Objects[i])
		}
		b = append(b, ']')
	}
	tail := struct {
		Marks   map[string]string `json:"marks,omitempty"`
		Missing []Missing         `json:"missing,omitempty"`
		Stmts   *Statements       `json:"statements,omitempty"`
	}{s.Marks, s.Missing, s.Statements}
	t, err := json.Marshal(tail)
	if err != nil {
		return nil, err
	}
	if len(t) > 2 {
		b = append(b, ',')
		b = append(b, t[1:len(t)-1]...)
	}
	return append(b, '}'), nil
}

func appendCounter(b []byte, c *Counter) ([]byte, error) {
	b = append(b, `{"level":`...)
	b = appendString(b, string(c.Level))
	if c.Object != "" {
		b = append(b, `,"object":`...)
		b = appendString(b, c.Object)
	}
	b = append(b, `,"metric":`...)
	b = appendString(b, c.Metric)
	b = append(b, `,"value":`...)
	var err error
	if b, err = appendFloat(b, c.Value); err != nil {
		return nil, fmt.Errorf("counter %s: %w", c.Key, err)
	}
	b = append(b, `,"exactness":`...)
	b = appendString(b, string(c.Exactness))
	b = append(b, `,"source":`...)
	b = appendString(b, c.Source)
	b = appendOptional(b, `,"identity":`, c.Identity)
	b = appendOptional(b, `,"reset":`, c.Reset)
	if c.Interval {
		b = append(b, `,"interval":true`...)
	}
	if c.Gauge {
		b = append(b, `,"gauge":true`...)
	}
	b = appendOptional(b, `,"note":`, c.Note)
	return append(b, '}'), nil
}

func appendObject(b []byte, o *Object) []byte {
	b = append(b, `{"level":`...)
	b = appendString(b, string(o.Level))
	b = append(b, `,"schema":`...)
	b = appendString(b, o.Schema)
	b = append(b, `,"name":`...)
	b = appendString(b, o.Name)
	b = appendOptional(b, `,"table":`, o.Table)
	b = appendOptional(b, `,"id":`, o.ID)
	if len(o.Info) > 0 {
		keys := make([]string, 0, len(o.Info))
		for k := range o.Info {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json sorts map keys
		b = append(b, `,"info":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, o.Info[k])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendOptional(b []byte, field, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(append(b, field...), v)
}

// appendString quotes plain ASCII itself and leaves everything else (escapes,
// HTML-safe <>&, UTF-8 rules) to encoding/json, so the bytes stay its bytes.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat formats as encoding/json does (its float64Encoder).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
