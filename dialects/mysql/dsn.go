package mysql

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
)

// Config parses a DSN: a URL mysql://user:pass@host:3306/db?params (also
// mariadb://; ?socket=/path for a Unix socket) or the driver's own form
// user:pass@tcp(host:3306)/db?params.
func Config(dsn string) (*driver.Config, error) {
	var cfg *driver.Config
	if scheme, rest, ok := urlForm(dsn); ok {
		c, err := fromURL(scheme, rest, dsn)
		if err != nil {
			return nil, err
		}
		cfg = c
	} else {
		c, err := driver.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("--dsn: %s (expected mysql://user[:password]@host:3306/database or user[:password]@tcp(host:3306)/database)", dialects.ParseErrorText(err))
		}
		cfg = c
	}
	if cfg.Timeout == 0 || cfg.Timeout > ConnectTimeout {
		cfg.Timeout = ConnectTimeout
	}
	// The driver logs connection trouble on its own; writeamp reports the
	// returned error instead, once.
	cfg.Logger, cfg.ConnectionAttributes = nopLogger{}, withProgramName(cfg.ConnectionAttributes)
	return cfg, nil
}

type nopLogger struct{}

func (nopLogger) Print(...any) {}

// urlForm reports a mysql:// or mariadb:// URL; anything else is the
// driver's form, whose password may itself hold "://".
func urlForm(dsn string) (scheme, rest string, ok bool) {
	scheme, rest, ok = strings.Cut(dsn, "://")
	scheme = strings.ToLower(scheme)
	return scheme, rest, ok && (scheme == "mysql" || scheme == "mariadb")
}

func fromURL(scheme, rest, dsn string) (*driver.Config, error) {
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return nil, fmt.Errorf("--dsn: cannot parse the URL: %s (percent-encode @ : / %% ? # & in a password, e.g. %%40 for @)", dialects.ParseErrorText(err))
	}
	q := u.Query()
	cfg := driver.NewConfig()
	// Parameters go through the driver's own parser, so every option it knows
	// (tls, charset, readTimeout, interpolateParams, ...) means the same in
	// both DSN forms; unknown ones become session variables, as it does.
	socket := q.Get("socket")
	q.Del("socket")
	if enc := q.Encode(); enc != "" {
		pc, err := driver.ParseDSN("/?" + enc)
		if err != nil {
			return nil, fmt.Errorf("--dsn: %s", dialects.ParseErrorText(err))
		}
		cfg = pc
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(cfg.DBName, "/") {
		// Not quoted: with an unencoded '/' in the password, the "database
		// name" is the password's tail.
		return nil, fmt.Errorf("--dsn: the database name contains '/' (percent-encode / and @ in a password: %%2F, %%40)")
	}
	switch {
	case socket != "":
		cfg.Net, cfg.Addr = "unix", socket
	default:
		host := u.Hostname()
		if host == "" {
			host = "127.0.0.1"
		}
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		if _, err := strconv.Atoi(port); err != nil {
			return nil, fmt.Errorf("--dsn: the port is not a number (percent-encode : / @ in a password: %%3A, %%2F, %%40)")
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	return cfg, nil
}
