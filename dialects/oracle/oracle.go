package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	go_ora "github.com/sijms/go-ora/v2"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Name is the dialect's registry name.
const Name = "oracle"

// VersionNum orders servers as major*10000 + release update*100 + revision,
// from "19.21.0.0.0" (version_full, 18c+) -> 192100; 12.2.0.1 -> 120200.
const (
	Version12_1 = 120100
	Version12_2 = 120200
	Version18   = 180000
	Version19   = 190000
	Version23   = 230000
)

// Capability names. Version differences live here as predicates, nowhere else.
const (
	CapStatisticsLevel = "statistics_level" // TYPICAL or ALL: segment statistics are kept
	CapInstance        = "v$instance"       // the start time is readable
	// CapLongIdentifiers: names up to 128 bytes (COMPATIBLE 12.2 or higher);
	// below, 30 bytes, whatever the release.
	CapLongIdentifiers = "long_identifiers"

	PropStatisticsLevel = "statistics_level"
	PropCompatible      = "compatible"
	PropConName         = "con_name"
	PropConID           = "con_id"
	PropInstanceName    = "instance_name"
	// PropDBIDSource says where the DBID in Identity came from, or why none.
	PropDBIDSource = "dbid_source"
)

// InPDB reports whether the session is in a pluggable database (CON_ID > 1:
// 0 is a non-CDB, 1 the root): the instance-wide V$SYSSTAT and
// V$SYSTEM_EVENT are then not this database's figures, V$CON_* are.
func InPDB(s dialects.Server) bool {
	id, err := strconv.Atoi(s.Prop(PropConID))
	return err == nil && id > 1
}

func supportedVersion(v int) bool         { return v >= Version12_2 }
func supportsVersionFull(v int) bool      { return v >= Version18 }
func supportsNoAuthentication(v int) bool { return v >= Version18 }

// SupportsWorkloadSchema reports whether the workload can create its own
// schema (a NO AUTHENTICATION user, 18c+).
func SupportsWorkloadSchema(v int) bool { return supportsNoAuthentication(v) }

// SupportedVersion reports whether writeamp supports the version number.
func SupportedVersion(v int) bool { return supportedVersion(v) }

// Dialect implements dialects.Dialect for Oracle.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

func (Dialect) Name() string      { return Name }
func (Dialect) Schemes() []string { return []string{"oracle"} }

// ConnectTimeout bounds how long an unreachable host can hold a command.
var ConnectTimeout = 10 * time.Second

// Open connects and checks the server answers. go-ora's own TIMEOUT option
// is also the read deadline of every later statement, so the connect bound
// comes from a dialer of our own and a deadline on the first ping instead.
func (d Dialect) Open(ctx context.Context, dsn string, _ ...dialects.OpenOption) (*sql.DB, error) {
	if _, err := go_ora.ParseConfig(dsn); err != nil {
		return nil, fmt.Errorf("--dsn: cannot parse the connection string: %s (expected oracle://user:password@host:1521/service)", dialects.ParseErrorText(err))
	}
	conn := go_ora.NewConnector(WithProgram(dsn))
	if oc, ok := conn.(*go_ora.OracleConnector); ok {
		oc.Dialer(&net.Dialer{Timeout: ConnectTimeout})
	}
	db := sql.OpenDB(conn)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		// go-ora names the address in connect errors, never the password
		// (TestConnectErrorsDoNotDependOnThePassword).
		return nil, fmt.Errorf("oracle: cannot connect to %s: %w", d.Redact(dsn), err)
	}
	return db, nil
}

// Probe learns the version and what this login may read. Only the version
// and identity queries must succeed; the V$ reads that fail become reasons.
func (Dialect) Probe(ctx context.Context, q dialects.Querier) (dialects.Server, error) {
	s := dialects.Server{Dialect: Name}
	var version string
	if err := queries.QueryRow(ctx, q, Name, "version", 0).Scan(&version); err != nil {
		return s, fmt.Errorf("oracle: probe version: %w", err)
	}
	v, err := ParseVersion(version)
	if err != nil {
		return s, fmt.Errorf("oracle: probe: %w", err)
	}
	if supportsVersionFull(v) {
		var full string
		if err := queries.QueryRow(ctx, q, Name, "version_full", v).Scan(&full); err != nil {
			return s, fmt.Errorf("oracle: probe version: %w", err)
		}
		if fv, err := ParseVersion(full); err == nil {
			version, v = full, fv
		}
	}
	s.Version, s.VersionNum = version, v
	if !supportedVersion(v) {
		return s, fmt.Errorf("oracle: Oracle %s is %w: writeamp needs Oracle 12.2 or later (18c or later for the built-in workload)", version, dialects.ErrUnsupported)
	}
	var dbName, conName, host, conID sql.NullString
	if err := queries.QueryRow(ctx, q, Name, "probe", v).Scan(&dbName, &conName, &s.User, &host, &conID); err != nil {
		return s, fmt.Errorf("oracle: probe: %w", err)
	}
	s.Database = conName.String
	if s.Database == "" {
		s.Database = dbName.String
	}
	s.SetProp(PropConName, conName.String)
	s.SetProp(PropConID, conID.String)
	s.Identity = identity(ctx, q, &s, v, dbName.String, host.String)
	probeRole(ctx, q, &s, v)

	var started, inst string
	if err := queries.QueryRow(ctx, q, Name, "instance", v).Scan(&started, &inst); err != nil {
		s.Set(CapInstance, false, "cannot read V$INSTANCE, so a restart between snapshots is caught only by counters going down: "+PrivilegeFor(s, "v_$instance").Error())
	} else {
		s.Set(CapInstance, true, "")
		s.SetProp(PropInstanceName, inst)
		if t, err := time.Parse("2006-01-02 15:04:05", started); err == nil {
			s.StartedAt = t.UTC()
		}
	}

	params, err := parameters(ctx, q, v)
	if err != nil {
		// Unknown, not missing: the collectors still try and report their own
		// error, and an over-long name fails with ORA-00972 on its own.
		return s, nil
	}
	if level, ok := params["statistics_level"]; ok {
		s.SetProp(PropStatisticsLevel, level)
		s.SetReason(CapStatisticsLevel, !strings.EqualFold(level, "BASIC"), dialects.Reason{Kind: dialects.Setting,
			Text: "STATISTICS_LEVEL is " + level + ": Oracle keeps no segment statistics", Fix: "ALTER SYSTEM SET statistics_level = TYPICAL SCOPE = BOTH"})
	}
	if compat, ok := params["compatible"]; ok {
		s.SetProp(PropCompatible, compat)
		long := false
		if cv, err := ParseVersion(compat); err == nil {
			long = cv >= Version12_2
		}
		limit := 30
		if long {
			limit = 128
		}
		why := "COMPATIBLE is " + compat + ": names are limited to 30 bytes whatever the release (128 bytes need COMPATIBLE 12.2 or higher: ALTER SYSTEM SET compatible = '19.0.0' SCOPE = SPFILE and a restart, which cannot be undone)"
		s.SetProp(dialects.PropMaxIdentifierBytes, strconv.Itoa(limit))
		if !long {
			s.SetProp(dialects.PropMaxIdentifierWhy, why)
		}
		s.Set(CapLongIdentifiers, long, why)
	}
	return s, nil
}

// identity names the database for SameServer: the DBID when it can be read
// (USERENV, else V$DATABASE), else the database and host names. The probe
// never fails for want of it.
func identity(ctx context.Context, q dialects.Querier, s *dialects.Server, v int, dbName, host string) string {
	var dbid sql.NullString
	err := queries.QueryRow(ctx, q, Name, "dbid", v).Scan(&dbid)
	src := "SYS_CONTEXT('USERENV', 'DBID')"
	if err != nil || dbid.String == "" {
		first := err
		err = queries.QueryRow(ctx, q, Name, "dbid_v_database", v).Scan(&dbid)
		src = "V$DATABASE.DBID (USERENV's DBID: " + errText(first) + ")"
		if err != nil || dbid.String == "" {
			s.SetProp(PropDBIDSource, "none: USERENV's DBID: "+errText(first)+"; V$DATABASE: "+errText(err))
			return "db-" + dbName + "@" + host + "/" + s.Database
		}
	}
	s.SetProp(PropDBIDSource, src)
	return "dbid-" + dbid.String + "/" + s.Database
}

func errText(err error) string {
	if err == nil {
		return "empty"
	}
	return err.Error()
}

// parameters reads the initialization parameters the probe needs.
func parameters(ctx context.Context, q dialects.Querier, v int) (map[string]string, error) {
	rows, err := queries.Query(ctx, q, Name, "parameters", v)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[strings.ToLower(name)] = value.String
	}
	return out, rows.Err()
}

// ParseVersion turns "19.21.0.0.0" into VersionNum (192100).
func ParseVersion(version string) (int, error) {
	parts := strings.Split(strings.TrimSpace(version), ".")
	if len(parts) < 2 {
		return 0, fmt.Errorf("cannot read the version %q", version)
	}
	n := 0
	for i, mult := range []int{10000, 100, 1} {
		if i >= len(parts) {
			break
		}
		x, err := strconv.Atoi(parts[i])
		if err != nil || x < 0 || (i > 0 && x >= 100) {
			return 0, fmt.Errorf("cannot read the version %q", version)
		}
		n += x * mult
	}
	return n, nil
}

// QuoteIdent quotes an identifier for Oracle.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
