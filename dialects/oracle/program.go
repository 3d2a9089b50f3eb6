package oracle

import (
	"net/url"
	"strings"
)

// ProgramName is what writeamp's sessions show in V$SESSION.PROGRAM, so the
// wait sampler can tell the workload's sessions from others' (go-ora's
// default is the executable's file name, which a renamed binary or a test
// changes).
const ProgramName = "writeamp"

// WithProgram adds PROGRAM=writeamp to an oracle:// URL that names no
// program of its own; anything else is returned as it is.
func WithProgram(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || !strings.EqualFold(u.Scheme, "oracle") {
		return dsn
	}
	for k := range u.Query() {
		if strings.EqualFold(strings.TrimSpace(k), "PROGRAM") {
			return dsn
		}
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "PROGRAM=" + ProgramName
}
