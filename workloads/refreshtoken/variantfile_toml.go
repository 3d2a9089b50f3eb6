package refreshtoken

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A variant file in TOML (--variant-file x.toml) holds the same keys as the
// YAML form, validated the same way; go-toml's strict decoder refuses unknown
// keys with their line, and its parser's key positions give the lines of the
// checks made after decoding.

// ParseVariantTOML decodes a TOML variant file, refusing unknown keys, and
// checks what it names; errors carry the line.
func ParseVariantTOML(data []byte) (*FileVariant, error) {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v FileVariant
	if err := dec.Decode(&v); err != nil {
		return nil, tomlError(err)
	}
	lines, err := tomlLines(data)
	if err != nil {
		return nil, tomlError(err)
	}
	return checkVariant(&v, func(path ...string) int {
		// The nearest key found, as for YAML: a path's own line, else its
		// longest prefix's.
		for n := len(path); n > 0; n-- {
			if l, ok := lines[strings.Join(path[:n], "\x00")]; ok {
				return l
			}
		}
		return 1
	})
}

// tomlError puts the line first, as the YAML decoder's errors have it.
func tomlError(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		row, _ := e.Position()
		return fmt.Errorf("line %d: unknown key %s", row, strings.Join(e.Key(), "."))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("line %d: %s", row, de.Error())
	}
	return err
}

// tomlLines maps every key path of the document (and every array element,
// by its index) to the line it starts on: table headers set the prefix of
// the key/value lines under them, inline tables nest.
func tomlLines(data []byte) (map[string]int, error) {
	lines := map[string]int{}
	p := &unstable.Parser{}
	p.Reset(data)
	lineOfNode := func(n *unstable.Node) int { return p.Shape(n.Raw).Start.Line }
	put := func(path []string, line int) {
		for i := 1; i <= len(path); i++ {
			k := strings.Join(path[:i], "\x00")
			if _, ok := lines[k]; !ok {
				lines[k] = line
			}
		}
	}
	keyOf := func(n *unstable.Node, prefix []string) ([]string, int) {
		path := append([]string(nil), prefix...)
		line := 0
		for it := n.Key(); it.Next(); {
			k := it.Node()
			if line == 0 {
				line = lineOfNode(k)
			}
			path = append(path, string(k.Data))
		}
		return path, line
	}
	var value func(v *unstable.Node, path []string)
	keyval := func(n *unstable.Node, prefix []string) {
		path, line := keyOf(n, prefix)
		put(path, line)
		value(n.Value(), path)
	}
	value = func(v *unstable.Node, path []string) {
		switch v.Kind {
		case unstable.InlineTable:
			for it := v.Children(); it.Next(); {
				keyval(it.Node(), path)
			}
		case unstable.Array:
			i := 0
			for it := v.Children(); it.Next(); {
				e := it.Node()
				if e.Kind == unstable.Comment {
					continue
				}
				el := append(append([]string(nil), path...), strconv.Itoa(i))
				if e.Raw.Length > 0 {
					put(el, lineOfNode(e))
				}
				value(e, el)
				i++
			}
		}
	}
	var table []string
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, line := keyOf(n, nil)
			put(path, line)
			table = path
		case unstable.KeyValue:
			keyval(n, table)
		}
	}
	return lines, p.Error()
}
