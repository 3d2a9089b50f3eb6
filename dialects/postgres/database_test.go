package postgres

import "testing"

// The copy's DSN must name the copy, whatever form the user's took; a
// key=value string is overridden by a later dbname, as libpq and pgx read it.
func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://u:p%40ss@h:5432/app?sslmode=disable", "postgres://u:p%40ss@h:5432/writeamp_ck_1?sslmode=disable"},
		{"postgresql://h/app", "postgresql://h/writeamp_ck_1"},
		{"host=h dbname=app user=u", "host=h dbname=app user=u dbname='writeamp_ck_1'"},
		{"", ""},
	} {
		got := WithDatabase(c.dsn, "writeamp_ck_1")
		if got != c.want {
			t.Errorf("WithDatabase(%q) = %q, want %q", c.dsn, got, c.want)
		}
		if got == "" {
			continue
		}
		cfg, err := Config(got)
		if err != nil || cfg.Database != "writeamp_ck_1" {
			t.Errorf("%q parses to database %q (%v)", got, cfg.Database, err)
		}
	}
}
