package main

import (
	"errors"
	"strings"
	"testing"
)

// The offline-session knobs are refused before anything connects, naming
// the flag, and run's help lists them.
func TestOfflineFlagsAreUsageErrorsNamingTheFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dsn", closedPG, "--offline-percent", "150"}, "--offline-percent"},
		{[]string{"run", "--dsn", closedPG, "--offline-percent", "-1"}, "--offline-percent"},
		{[]string{"run", "--dsn", closedPG, "--offline-percent", "NaN"}, "--offline-percent"},
		{[]string{"run", "--dsn", closedPG, "--offline-max-idle", "0s"}, "--offline-max-idle"},
		{[]string{"run", "--dsn", closedPG, "--offline-percent", "10", "--offline-max-idle", "1m", "--refresh-period", "1m"}, "--offline-max-idle"},
		{[]string{"run", "--dsn", closedPG, "--offline-percent", "10", "--offline-max-idle", "175200h"}, "--offline-max-idle"},
	} {
		_, _, err := run(t, c.args...)
		var ue usageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want a usage error naming %s, got %v", c.args, c.want, err)
		}
	}
	out, _, err := run(t, "run", "--help")
	if err != nil || !strings.Contains(out, "--offline-percent") || !strings.Contains(out, "--offline-max-idle") || !strings.Contains(out, "720h0m0s") {
		t.Errorf("run --help does not list the offline flags with the 30-day default: %v", err)
	}
}
