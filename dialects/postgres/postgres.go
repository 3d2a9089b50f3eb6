package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/kernelwait"
	"github.com/writeamp/writeamp/queries"
)

// Capability names. Version differences live here as predicates, nowhere else.
const (
	CapStatWAL          = "pg_stat_wal"              // 14+
	CapStatIO           = "pg_stat_io"               // 16+
	CapNewpage          = "n_tup_newpage_upd"        // 16+
	CapForceFlush       = "pg_stat_force_next_flush" // 15+ shared-memory stats
	CapFetchConsistency = "stats_fetch_consistency"  // 15+
	CapWalinspect       = "pg_walinspect"            // 15+, installed or creatable, and executable
	CapWalBlockInfo     = "pg_get_wal_block_info"    // 16+
	CapCheckpoint       = "checkpoint"               // superuser, or pg_checkpoint on 15+
	CapPrimary          = "primary"                  // not a standby: WAL positions are readable
	CapCreateWalinspect = "create_pg_walinspect"     // not installed, but this login may create it
	CapHoldWAL          = "replication_slot"         // may reserve a window's WAL with a physical slot
	CapWALFiles         = "wal_files"                // may read pg_wal segments (writeamp's own decoder)

	PropDatabaseOID      = "database_oid"
	PropMeasuring        = "measuring_lock" // this run holds measuring_share (Instrument)
	PropWalinspectSchema = "walinspect_schema"
	PropWALSegmentSize   = "wal_segment_size"
	PropDataDirectory    = "data_directory" // "" when this login may not read it
)

func supportsStatWAL(v int) bool { return v >= 140000 }

// PerDatabaseHorizon says whether the server prunes a database's pages by
// that database's own horizon (14+). 13 computes it over the whole cluster
// (RecentGlobalXmin), so any open snapshot, in any database, holds it back.
func PerDatabaseHorizon(s dialects.Server) bool { return s.VersionNum >= 140000 }
func supportsStatIO(v int) bool                 { return v >= 160000 }
func supportsNewpage(v int) bool                { return v >= 160000 }
func supportsSharedMemStats(v int) bool         { return v >= 150000 }
func supportsWalinspect(v int) bool             { return v >= 150000 }
func supportsWalBlockInfo(v int) bool           { return v >= 160000 }
func supportsCheckpointRole(v int) bool         { return v >= 150000 }

// Name is the dialect's registry name.
const Name = "postgres"

// Dialect implements dialects.Dialect for PostgreSQL.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

func (Dialect) Name() string { return Name }

// KernelWait: Config's dialer wraps connections with kernelwait when asked
// (dialects.KernelWait).
func (Dialect) KernelWait()       {}
func (Dialect) Schemes() []string { return []string{"postgres", "postgresql", "pg"} }

// ConnectTimeout bounds how long an unreachable host can hold a command.
var ConnectTimeout = 10 * time.Second

// Config parses a DSN (URL or key=value; empty means the PG* environment);
// opts are Open's.
func Config(dsn string, opts ...dialects.OpenOption) (*pgx.ConnConfig, error) {
	if strings.HasPrefix(dsn, "pg://") {
		dsn = "postgres://" + strings.TrimPrefix(dsn, "pg://")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgconn's parse errors quote the DSN or pieces of it; a DSN that
		// did not parse has no structure to find the password by, so
		// nothing of it is shown.
		msg := "cannot parse the connection string"
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && pe.Unwrap() != nil {
			msg += ": " + dialects.ParseErrorText(pe.Unwrap())
		} else if !errors.As(err, &pe) {
			msg += ": " + dialects.ParseErrorText(err)
		}
		return nil, fmt.Errorf("--dsn: %s (expected postgres://user[:password]@host:port/database?sslmode=disable or key=value pairs; percent-encode @ : / %% ? # & in a URL password, e.g. %%40 for @)", msg)
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > ConnectTimeout {
		cfg.ConnectTimeout = ConnectTimeout
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "writeamp"
	}
	cfg.OnNotice = routeNotice
	if dialects.OpenOptionsOf(opts).KernelWait {
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return kernelwait.Wrap(c), nil
		}
	}
	return cfg, nil
}

// Open connects and checks the server answers, with a bounded timeout.
func (d Dialect) Open(ctx context.Context, dsn string, opts ...dialects.OpenOption) (*sql.DB, error) {
	cfg, err := Config(dsn, opts...)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		// pgconn names host, user and database in connect errors, never
		// the password (TestConnectErrorsDoNotDependOnThePassword).
		return nil, fmt.Errorf("postgres: cannot connect to %s: %w", d.Redact(dsn), err)
	}
	return db, nil
}

// Probe learns the version and what this login may do.
func (Dialect) Probe(ctx context.Context, q dialects.Querier) (dialects.Server, error) {
	s := dialects.Server{Dialect: Name}
	var super, recovery bool
	var started string
	var dboid int64
	err := queries.QueryRow(ctx, q, Name, "probe", 0).Scan(
		&s.VersionNum, &s.Version, &s.Database, &s.User, &super, &recovery, &started, &dboid)
	if err != nil {
		return s, fmt.Errorf("postgres: probe: %w", err)
	}
	if v, _, ok := strings.Cut(s.Version, " "); ok {
		s.Version = v // "15.20 (Debian 15.20-0+deb12u1)" -> "15.20"
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999-07", started); err == nil {
		s.StartedAt = t.UTC()
	}
	s.Set("superuser", super, "")
	s.SetReason(CapPrimary, !recovery, dialects.Reason{Kind: dialects.Role, Text: "the server is a standby (in recovery): it has no WAL insert position and runs no writes"})
	s.SetProp(PropDatabaseOID, fmt.Sprint(dboid))
	// The checkpoint settings go into the result for plan; a server that
	// will not say leaves them unknown, not failing the probe.
	var cpTimeout, maxWAL string
	if err := queries.QueryRow(ctx, q, Name, "checkpoint_settings", 0).Scan(&cpTimeout, &maxWAL); err == nil {
		s.SetProp(dialects.PropSettingPrefix+"checkpoint_timeout", cpTimeout)
		s.SetProp(dialects.PropSettingPrefix+"max_wal_size", maxWAL)
	}
	// The system identifier tells clusters apart; pg_control_system() may be
	// restricted, so fall back to the start time alone.
	var sysid string
	if err := queries.QueryRow(ctx, q, Name, "system_identifier", 0).Scan(&sysid); err == nil {
		s.Identity = sysid + "/" + s.Database
	} else {
		s.Identity = "pg-started-" + started + "/" + s.Database
	}
	v := s.VersionNum
	needs := func(what, major string) dialects.Reason {
		return dialects.Reason{Kind: dialects.Version, Text: what + " needs PostgreSQL " + major + " or later"}
	}
	s.SetReason(CapStatWAL, supportsStatWAL(v), needs("pg_stat_wal", "14"))
	s.SetReason(CapStatIO, supportsStatIO(v), needs("pg_stat_io", "16"))
	s.SetReason(CapNewpage, supportsNewpage(v), needs("n_tup_newpage_upd", "16"))
	s.SetReason(CapForceFlush, supportsSharedMemStats(v), needs("pg_stat_force_next_flush()", "15"))
	s.SetReason(CapFetchConsistency, supportsSharedMemStats(v), needs("stats_fetch_consistency", "15"))
	s.SetReason(CapWalBlockInfo, supportsWalBlockInfo(v), needs("pg_get_wal_block_info", "16"))

	var files, repl, walLevel, freeSlot, canCP, avail, installed, exec bool
	var segSize int64
	var dataDir, schema string
	var walBlock int
	if err := queries.QueryRow(ctx, q, Name, "capabilities", v).Scan(&files, &segSize, &dataDir, &walBlock,
		&repl, &walLevel, &freeSlot, &canCP, &avail, &installed, &exec, &schema); err != nil {
		return s, fmt.Errorf("postgres: probe what %s may do: %w", s.User, err)
	}
	s.SetProp(PropWALSegmentSize, fmt.Sprint(segSize))
	s.SetProp(PropDataDirectory, dataDir)
	if walBlock != 8192 {
		s.Set(CapWALFiles, false, fmt.Sprintf("this server was built with %d-byte WAL pages; writeamp's decoder reads 8192-byte ones, so the WAL is read through pg_walinspect", walBlock))
	} else {
		s.SetReason(CapWALFiles, files, dialects.Reason{Kind: dialects.Privilege, Text: s.User + " may not read the pg_wal segments, which writeamp decodes itself",
			Fix: "GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO " + quoteIdent(s.User)})
	}

	switch {
	case !repl:
		s.Deny(CapHoldWAL, dialects.Reason{Kind: dialects.Privilege, Text: s.User + " may not create replication slots, so a checkpoint inside a long window can recycle its start before pg_walinspect reads it",
			Fix: "ALTER ROLE " + quoteIdent(s.User) + " REPLICATION"})
	case !walLevel:
		s.Deny(CapHoldWAL, dialects.Reason{Kind: dialects.Setting, Text: "wal_level is minimal: no replication slot can hold a long window's WAL", Fix: "wal_level = replica, needs a restart"})
	case !freeSlot:
		s.Deny(CapHoldWAL, dialects.Reason{Kind: dialects.Setting, Text: "every replication slot (max_replication_slots) is in use: none is left to hold a long window's WAL"})
	default:
		s.Set(CapHoldWAL, true, "")
	}

	cpFix := "ALTER ROLE " + quoteIdent(s.User) + " SUPERUSER"
	if supportsCheckpointRole(v) {
		cpFix = "GRANT pg_checkpoint TO " + quoteIdent(s.User)
	}
	s.SetReason(CapCheckpoint, canCP, dialects.Reason{Kind: dialects.Privilege, Text: "CHECKPOINT is not permitted for " + s.User, Fix: cpFix})

	if recovery {
		asStandby(&s)
		return s, nil
	}
	if !supportsWalinspect(v) {
		s.Deny(CapWalinspect, needs("pg_walinspect", "15"))
		return s, nil
	}
	if installed {
		s.SetProp(PropWalinspectSchema, schema)
	}
	switch {
	case installed && exec:
		s.Set(CapWalinspect, true, "")
	case installed:
		s.Deny(CapWalinspect, dialects.Reason{Kind: dialects.Privilege, Text: "pg_walinspect is installed but " + s.User + " may not execute it",
			Fix: fmt.Sprintf("GRANT pg_read_server_files TO %s, or GRANT EXECUTE ON FUNCTION %s.pg_get_wal_records_info(pg_lsn, pg_lsn)%s TO %s",
				quoteIdent(s.User), quoteIdent(schema), blockInfoGrant(v, schema), quoteIdent(s.User))})
	case !avail:
		s.Deny(CapWalinspect, dialects.Reason{Kind: dialects.Setting, Text: "the pg_walinspect extension is not installed on the server (it ships with PostgreSQL's contrib: apt-get install postgresql-contrib, or postgresql-NN for Debian)"})
	case super:
		s.Set(CapWalinspect, true, "")
		s.Set(CapCreateWalinspect, true, "")
	default:
		s.Deny(CapWalinspect, dialects.Reason{Kind: dialects.Setting, Text: "pg_walinspect is not installed in database " + s.Database + " and " + s.User + " may not create it",
			Fix: "CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO " + quoteIdent(s.User), AsSuperuser: true})
	}
	return s, nil
}

func blockInfoGrant(v int, schema string) string {
	if supportsWalBlockInfo(v) {
		return ", " + quoteIdent(schema) + ".pg_get_wal_block_info(pg_lsn, pg_lsn, boolean)"
	}
	return ""
}

func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

// QuoteIdent quotes an identifier for PostgreSQL.
func QuoteIdent(s string) string { return quoteIdent(s) }
