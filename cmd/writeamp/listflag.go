package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// listValue is a repeatable flag whose values may also be comma-separated.
// Unlike pflag's StringSlice it does not read them as CSV, where a '"'
// anywhere but a field's start is an error of several lines: here a value
// starting with '"' runs to its closing quote ("" inside is a quote) and may
// hold commas, and a '"' elsewhere is an ordinary character. Quoted values
// keep their quotes for names (--schema '"MySchema"' means the exact,
// case-sensitive name, as in SQL) and lose them for labels.
type listValue struct {
	list    *[]string
	set     bool
	unquote bool
	flag    string
}

func (l *listValue) Set(s string) error {
	items, err := splitList(s)
	if err != nil {
		return err // pflag adds the flag's name
	}
	if l.unquote {
		for i, it := range items {
			items[i] = unquoteItem(it)
		}
	}
	if !l.set {
		*l.list = nil // the first use replaces the default
		l.set = true
	}
	*l.list = append(*l.list, items...)
	return nil
}

func (l *listValue) Type() string   { return "strings" }
func (l *listValue) String() string { return strings.Join(*l.list, ",") }

// listFlag registers a list of names (quotes kept); labelFlag one of labels.
func listFlag(f *pflag.FlagSet, p *[]string, name, short string, def []string, usage string) {
	*p = def
	f.VarP(&listValue{list: p, flag: name}, name, short, usage)
}

func labelFlag(f *pflag.FlagSet, p *[]string, name string, usage string) {
	f.Var(&listValue{list: p, flag: name, unquote: true}, name, usage)
}

// splitList cuts at commas outside double-quoted parts.
func splitList(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	start := true // at the start of an item
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && start:
			// A quoted part runs to the closing quote; "" is a quote.
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("%q has a \" that is never closed (quote a name with commas as \"a,b\", a quote inside as \"\")", s)
			}
			cur.WriteString(s[i : j+1])
			i = j
			start = false
		case c == ',':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			start = true
		case c == ' ' && strings.TrimSpace(cur.String()) == "":
			cur.WriteByte(c) // leading space: the item has not started
		case c == '.':
			cur.WriteByte(c)
			start = true // "schema"."table": each part may be quoted
		default:
			cur.WriteByte(c)
			start = false
		}
	}
	out = append(out, strings.TrimSpace(cur.String()))
	for _, it := range out {
		if it == "" {
			return nil, fmt.Errorf("%q has an empty item", s)
		}
	}
	return out, nil
}

// unquoteItem turns "a,b" into a,b and "" into ".
func unquoteItem(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}
