package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/dialects"
)

// Version and Commit are set by the linker in release builds (make dist):
// the command writes the version into every result and snapshot file.
var (
	Version = "dev"
	Commit  = ""
)

// buildVersion is what this binary is: the release stamp, else the module
// version `go install …@v1.2.3` records, else the VCS revision of a
// checkout build.
func buildVersion() (version, commit string) {
	version, commit = Version, Commit
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version, commit
	}
	if version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && commit == "" {
			commit = s.Value
		}
		if s.Key == "vcs.modified" && s.Value == "true" && commit != "" && Commit == "" {
			commit += "-dirty"
		}
	}
	return version, commit
}

// toolVersion is buildVersion's version, as results record it.
func toolVersion() string {
	v, _ := buildVersion()
	return v
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and the dialects this build supports",
		Long: `Print the version, commit, Go version and the dialects this build supports.
Reference: docs/cli/writeamp_version.md`,
		Example: "  writeamp version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, c := buildVersion()
			if c == "" {
				c = "unknown"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "writeamp %s\ncommit: %s\ngo: %s %s/%s\ndialects: %v\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH, dialects.Names())
			return nil
		},
	}
}
