package owned

import (
	"errors"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
)

func TestDDLPermissionErrorsNameTheGrantOfTheDialect(t *testing.T) {
	on := func(d string) *Schemas { return &Schemas{t: dialects.Target{Server: dialects.Server{Dialect: d}}} }
	for d, want := range map[string]string{"postgres": "GRANT CREATE ON DATABASE", "mysql": "ON *.*", "sqlserver": "CREATE SCHEMA", "oracle": "CREATE USER"} {
		if err := on(d).Explain(errors.New("permission denied for database kc")); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", d, err)
		}
	}
	if err := on("postgres").Explain(errors.New("syntax error")); strings.Contains(err.Error(), "GRANT") {
		t.Errorf("only permission errors get a GRANT: %v", err)
	}
}
