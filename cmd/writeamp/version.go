package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version and the dialects this build supports",
		Example: "  writeamp version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := measure.Version
			if v == "dev" {
				if bi, ok := debug.ReadBuildInfo(); ok {
					for _, s := range bi.Settings {
						if s.Key == "vcs.revision" && len(s.Value) >= 12 {
							v = "dev+" + s.Value[:12]
						}
					}
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "writeamp %s (%s, %s/%s)\ndialects: %v\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, dialects.Names())
			return nil
		},
	}
}
