package main

import (
	"strings"
	"testing"
)

// Every command with --format takes it as one typed value: a format it
// does not write is refused while the flags are parsed (before any input is
// read or any server reached), naming the flag and its choices; the help
// and the shell completion list the same choices.
func TestFormatIsOneTypedFlagEverywhere(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"run": "table, markdown, json, csv, html, openmetrics", "measure": "table, markdown, json, csv, html, openmetrics", "diff": "table, markdown, json, csv, html, openmetrics",
		"compare": "table, markdown, json, csv, html, openmetrics", "check": "table, markdown, json, openmetrics", "plan": "table, markdown, json", "doctor": "table, markdown, json",
		"explain": "table, json", "advise": "table, markdown, html, json",
	}
	seen := 0
	for _, c := range newRoot().Commands() {
		f := c.Flags().Lookup("format")
		if f == nil {
			continue
		}
		seen++
		if _, ok := f.Value.(*formatValue); !ok {
			t.Errorf("%s: --format is a %s, not the typed format flag", c.Name(), f.Value.Type())
			continue
		}
		choices, ok := want[c.Name()]
		if !ok {
			t.Errorf("%s has --format and no expected choices here", c.Name())
			continue
		}
		// Files that do not exist and a server that does not answer: only
		// a flag refused at parse time gives this error.
		args := []string{c.Name(), "--format", "yaml"}
		if c.Flags().Lookup("dsn") != nil {
			args = append(args, "--dsn", closedPG)
		}
		_, _, err := run(t, append(args, "/nonexistent/a.json", "/nonexistent/b.json")...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), `"yaml" for "--format" flag: unknown format "yaml" (use one of: `+choices+")") {
			t.Errorf("%s --format yaml: exit %d, %v", c.Name(), exitCode(err), err)
		}
		if !strings.Contains(f.Usage, strings.ReplaceAll(choices, ", ", "|")) || f.DefValue != "table" {
			t.Errorf("%s: help %q, default %q", c.Name(), f.Usage, f.DefValue)
		}
		out, _, err := run(t, "__complete", c.Name(), "--format", "")
		if err != nil || !strings.HasPrefix(out, strings.ReplaceAll(choices, ", ", "\n")+"\n:4\n") {
			t.Errorf("%s: completion %q %v", c.Name(), out, err)
		}
	}
	if seen != len(want) {
		t.Errorf("%d commands have --format, want %d", seen, len(want))
	}
}
