package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/reports"
)

// formatValue is --format: one of a command's formats. A value outside
// them is refused while the flags are parsed (exit 2, naming the flag and
// the choices), so no command checks it again; the help text and the shell
// completion come from the same list.
type formatValue struct {
	value   *string
	choices []string
}

func (f *formatValue) Set(s string) error {
	if !slices.Contains(f.choices, s) {
		return fmt.Errorf("unknown format %q (use one of: %s)", s, strings.Join(f.choices, ", "))
	}
	*f.value = s
	return nil
}

func (f *formatValue) String() string { return *f.value }
func (f *formatValue) Type() string   { return "format" }

// formatFlag registers --format on cmd; the first choice is the default.
func formatFlag(cmd *cobra.Command, p *string, choices []string) {
	*p = choices[0]
	cmd.Flags().Var(&formatValue{value: p, choices: choices}, "format", "output format: "+strings.Join(choices, "|"))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(choices, cobra.ShellCompDirectiveNoFileComp))
	if slices.Equal(choices, reports.Formats) {
		cmd.Flags().Int("top", reports.DefaultTop, "objects table/markdown/html show, most active first (0: all)")
	}
}

// topOption is cmd's --top as reports.Options has it (0 there is the
// default, -1 all). It is read from the command's own flags: a package
// variable bound by every command tree was written by each tree a test
// built while another test's command read it.
func topOption(cmd *cobra.Command) int {
	n, err := cmd.Flags().GetInt("top")
	if err != nil {
		return reports.DefaultTop
	}
	if n <= 0 {
		return -1
	}
	return n
}
