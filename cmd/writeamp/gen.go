package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newGenCmd writes the man pages and shell completions that release
// archives carry (make dist) and the Markdown reference in docs/cli (make
// docs). Hidden: it is for packaging, not for users.
func newGenCmd(root *cobra.Command) *cobra.Command {
	var manDir, complDir, mdDir string
	cmd := &cobra.Command{
		Use:    "gen [--man DIR] [--completions DIR] [--markdown DIR]",
		Short:  "Write man pages, shell completions and the Markdown reference (for packaging)",
		Hidden: true,
		Example: `  writeamp gen --man dist/man/man1 --completions dist/completions
  writeamp gen --markdown docs/cli`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if manDir == "" && complDir == "" && mdDir == "" {
				return usagef("gen: give --man DIR, --completions DIR, --markdown DIR or several")
			}
			if mdDir != "" {
				if err := genMarkdown(root, mdDir); err != nil {
					return fmt.Errorf("--markdown: %w", err)
				}
			}
			if manDir != "" {
				if err := os.MkdirAll(manDir, 0o755); err != nil {
					return err
				}
				v, _ := buildVersion()
				hdr := &doc.GenManHeader{Title: "WRITEAMP", Section: "1", Source: "writeamp " + v, Manual: "writeamp manual"}
				if err := doc.GenManTree(root, hdr, manDir); err != nil {
					return fmt.Errorf("--man: %w", err)
				}
			}
			if complDir != "" {
				if err := os.MkdirAll(complDir, 0o755); err != nil {
					return err
				}
				for name, gen := range map[string]func(string) error{
					"writeamp.bash": func(p string) error { return root.GenBashCompletionFileV2(p, true) },
					"_writeamp":     root.GenZshCompletionFile,
					"writeamp.fish": func(p string) error { return root.GenFishCompletionFile(p, true) },
					"writeamp.ps1":  root.GenPowerShellCompletionFileWithDesc,
				} {
					if err := gen(filepath.Join(complDir, name)); err != nil {
						return fmt.Errorf("--completions: %w", err)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&manDir, "man", "", "write one man page per command here")
	cmd.Flags().StringVar(&complDir, "completions", "", "write bash, zsh, fish and PowerShell completions here")
	cmd.Flags().StringVar(&mdDir, "markdown", "", "write one Markdown page per command here (docs/cli)")
	return cmd
}

// genMarkdown writes one page per visible command into dir, writeamp.md
// the index. The pages are committed and a test compares them with the
// commands, so they carry no date and link each other by file name only
// (relative links resolve on GitHub and in a checkout alike). The help and
// completion commands are added as Execute adds them, so the pages are the
// same whether gen runs them or a test does.
func genMarkdown(root *cobra.Command, dir string) error {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noDate(sub)
		}
	}
	noDate(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	noPrefix := func(string) string { return "" }
	return doc.GenMarkdownTreeCustom(root, dir, noPrefix, filepath.Base)
}

// wrapHelp breaks text into lines of at most width columns at spaces, for
// a one-line constant shown in --help (no help line is wider than 120).
func wrapHelp(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
