package mysql

import (
	"strings"
	"testing"
)

// The change buffer is InnoDB's and a caveat of the measurement: the
// notes never attribute a change-buffer claim to the PR, which made none.
func TestChangeBufferNoteIsACaveatNotAClaim(t *testing.T) {
	for _, mode := range []string{"", "none", "all"} {
		got := ChangeBufferNote(mode)
		if strings.Contains(got, "PR") || strings.Contains(got, "claim") {
			t.Errorf("ChangeBufferNote(%q) = %q", mode, got)
		}
	}
	if got := ChangeBufferNote("none"); !strings.Contains(got, "InnoDB's change buffer defers no secondary-index change") {
		t.Errorf("none: %q", got)
	}
}
