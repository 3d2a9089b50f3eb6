package result

import (
	"slices"
	"testing"
)

func TestUnique(t *testing.T) {
	if got := Unique([]string{"b", "a", "b", "", "a", ""}); !slices.Equal(got, []string{"b", "a", ""}) {
		t.Errorf("Unique: %q", got)
	}
	if got := Unique(nil); got != nil {
		t.Errorf("Unique(nil) = %q", got)
	}
}
