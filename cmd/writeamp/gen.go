package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newGenCmd writes the man pages and shell completions that release
// archives carry (make dist). Hidden: it is for packaging, not for users.
func newGenCmd(root *cobra.Command) *cobra.Command {
	var manDir, complDir string
	cmd := &cobra.Command{
		Use:     "gen --man DIR --completions DIR",
		Short:   "Write man pages and shell completions (for packaging)",
		Hidden:  true,
		Example: "  writeamp gen --man dist/man/man1 --completions dist/completions",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if manDir == "" && complDir == "" {
				return usagef("gen: give --man DIR, --completions DIR or both")
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
	return cmd
}
