package doctor

import (
	"testing"

	"github.com/writeamp/writeamp/collectors"
	_ "github.com/writeamp/writeamp/collectors/mysql"
	_ "github.com/writeamp/writeamp/collectors/oracle"
	_ "github.com/writeamp/writeamp/collectors/postgres"
	_ "github.com/writeamp/writeamp/collectors/sqlserver"
)

// A collector doctor cannot describe shows up as a blank line: every
// registered collector says what it gives and what is lost without it.
func TestEveryCollectorSaysWhatItGivesAndWhatIsLost(t *testing.T) {
	for _, d := range []string{"postgres", "mysql", "sqlserver", "oracle"} {
		set, err := collectors.For(d)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range set.Sources {
			names = append(names, c.Name())
		}
		for _, c := range set.Interval {
			names = append(names, c.Name())
		}
		for _, n := range names {
			g, ok := gives[n]
			if !ok || g[0] == "" || g[1] == "" {
				t.Errorf("%s collector %s: doctor has no description of what it gives and what is lost without it", d, n)
			}
		}
	}
}
