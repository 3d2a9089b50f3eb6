package mysql

import "testing"

// writeamp's sessions carry program_name:writeamp, which the wait sampler
// looks for in performance_schema.session_connect_attrs; a DSN that names
// its own program keeps it.
func TestSessionsNameTheirProgram(t *testing.T) {
	t.Parallel()
	for dsn, want := range map[string]string{
		"mysql://root@127.0.0.1:3306/test":                                          "program_name:writeamp",
		"root@tcp(127.0.0.1:3306)/test?connectionAttributes=team:kc":                "team:kc,program_name:writeamp",
		"mysql://root@127.0.0.1:3306/test?connectionAttributes=program_name%3Amine": "program_name:mine",
	} {
		cfg, err := Config(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.ConnectionAttributes != want {
			t.Errorf("%s: %q, want %q", dsn, cfg.ConnectionAttributes, want)
		}
	}
}
