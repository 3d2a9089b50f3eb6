package workloads

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
)

// ConnectionLost reports whether an error means the session is gone (the
// server restarted or shut down, the connection was killed or dropped):
// the operation cannot succeed on this connection, so the run stops at once
// instead of counting failures.
func ConnectionLost(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code := st.SQLState()
		// 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now.
		if strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" {
			return true
		}
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "connection reset", "broken pipe", "invalid connection", "bad connection", "server has gone away", "Lost connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
