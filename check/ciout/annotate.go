package ciout

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Annotate writes one GitHub Actions workflow command per problem
// (::error / ::warning file=…,line=…,title=…::message), which the runner
// shows on the pull request's diff at that line. Suppressed problems are
// not annotated. Paths are relative to the repository (GITHUB_WORKSPACE,
// else the working directory), as GitHub matches them against the diff.
func Annotate(w io.Writer, problems []Problem) error {
	for _, p := range problems {
		if p.Suppressed != nil {
			continue
		}
		props := []string{}
		if p.Path != "" {
			props = append(props, "file="+escapeProperty(RepoPath(p.Path)))
			if p.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", p.Line))
			}
		}
		props = append(props, "title="+escapeProperty(p.Title))
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", p.Level, strings.Join(props, ","), escapeData(p.Text)); err != nil {
			return err
		}
	}
	return nil
}

// escapeData and escapeProperty are the escaping of @actions/core's
// command.ts (toCommandValue, escapeData, escapeProperty), which the
// runner undoes: a newline in a message would otherwise end the command,
// and a comma or colon in a property would end the property.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// RepoPath is path relative to the repository root (GITHUB_WORKSPACE when
// set, else the working directory), with forward slashes; a path outside
// it is returned as given.
func RepoPath(path string) string {
	base := repoRoot()
	abs, err := filepath.Abs(path)
	if err != nil || base == "" {
		return filepath.ToSlash(path)
	}
	// Resolve links on both sides (macOS' /tmp is /private/tmp).
	if b, err := filepath.EvalSymlinks(base); err == nil {
		base = b
	}
	if a, err := filepath.EvalSymlinks(abs); err == nil {
		abs = a
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

func repoRoot() string {
	if base := os.Getenv("GITHUB_WORKSPACE"); base != "" {
		return base
	}
	base, _ := os.Getwd()
	return base
}
