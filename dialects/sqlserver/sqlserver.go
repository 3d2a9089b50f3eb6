package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/microsoft/go-mssqldb/msdsn"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Name is the dialect's registry name.
const Name = "sqlserver"

// VersionNum orders servers as major*100000 + build, from ProductVersion
// "major.minor.build.revision": 16.0.4135.4 -> 1604135. Builds stay below
// 100000, and minor is 0 on every release since 2008 R2, so nothing is lost.
const (
	Version2016 = 1300000
	Version2017 = 1400000
	Version2019 = 1500000
	Version2022 = 1600000
)

// AzureVersionNum stands for Azure SQL Database and Managed Instance: both
// report ProductVersion 12.0.2000.8 (it names the service, not the engine)
// while running the current engine, so version gates treat them as the
// newest boxed release they match in features (2022: PERFORMANCE STATE
// permissions, OPTIMIZE_FOR_SEQUENTIAL_KEY).
const AzureVersionNum = Version2022

// Engine editions (SERVERPROPERTY('EngineEdition')) that change what a login
// may read.
const (
	engineAzureSQLDatabase   = 5
	engineAzureManagedInstnc = 8
)

// Flavors.
const (
	FlavorAzureSQLDatabase = "azure"
	FlavorManagedInstance  = "azure-mi"
)

// Capability names. Version differences live here as predicates, nowhere else.
const (
	CapViewDatabaseState     = "view_database_state"         // database DMVs (operational stats)
	CapViewServerState       = "view_server_state"           // server DMVs (wait stats, perf counters, file stats)
	CapCheckpoint            = "checkpoint"                  // sysadmin, db_owner or db_backupoperator
	CapFnDblog               = "fn_dblog"                    // sysadmin: per-index log bytes
	CapOptimizeSequentialKey = "optimize_for_sequential_key" // 2019+
	CapDatabaseWaitStats     = "dm_db_wait_stats"            // Azure SQL Database: waits of this database only
	// CapInstanceDMVs: sys.dm_os_performance_counters (and sys.dm_os_wait_stats
	// off Azure) are readable: VIEW SERVER (PERFORMANCE) STATE on a server; on
	// Azure SQL Database it depends on the service objective (InstanceScope).
	CapInstanceDMVs = "instance_dmvs"
	// CapViewDatabaseStateFull: VIEW DATABASE STATE itself (not only its
	// PERFORMANCE part), which sys.dm_db_wait_stats names.
	CapViewDatabaseStateFull = "view_database_state_full"

	PropLogin            = "login"          // the server login (SUSER_SNAME), for server-level GRANTs
	PropRecoveryModel    = "recovery_model" // SIMPLE truncates the log at checkpoints (fn_dblog)
	PropEngineEdition    = "engine_edition"
	PropServiceObjective = "service_objective" // Azure SQL Database: Basic, S0, ..., ElasticPool
)

func supportedVersion(v int) bool                 { return v >= Version2016 }
func supportsOptimizeForSequentialKey(v int) bool { return v >= Version2019 }

// supportsPerformanceStatePermissions: 2022 (and Azure) check VIEW ...
// PERFORMANCE STATE on the DMVs; earlier versions know only VIEW ... STATE.
func supportsPerformanceStatePermissions(v int) bool { return v >= Version2022 }

// SupportedVersion reports whether writeamp supports the version number.
func SupportedVersion(v int) bool { return supportedVersion(v) }

// Dialect implements dialects.Dialect for SQL Server.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

func (Dialect) Name() string      { return Name }
func (Dialect) Schemes() []string { return []string{"sqlserver", "mssql"} }

// ConnectTimeout bounds how long an unreachable host can hold a command.
var ConnectTimeout = 10 * time.Second

// Config parses a sqlserver:// URL and bounds its timeouts.
func Config(dsn string) (msdsn.Config, error) {
	if strings.HasPrefix(strings.ToLower(dsn), "mssql://") {
		dsn = "sqlserver://" + dsn[len("mssql://"):]
	}
	cfg, err := msdsn.Parse(dsn)
	if err != nil {
		return cfg, fmt.Errorf("--dsn: cannot parse the connection string: %s (expected sqlserver://user:password@host:1433?database=db)", dialects.ParseErrorText(err))
	}
	if cfg.DialTimeout <= 0 || cfg.DialTimeout > ConnectTimeout {
		cfg.DialTimeout = ConnectTimeout
	}
	if cfg.AppName == "" || cfg.AppName == "go-mssqldb" { // the driver's default: name ourselves in sys.dm_exec_sessions
		cfg.AppName = "writeamp"
	}
	return cfg, nil
}

// Open connects and checks the server answers within ConnectTimeout (the
// README's 10 s): a closed port fails at once, a silent one at the bound.
func (d Dialect) Open(ctx context.Context, dsn string, _ ...dialects.OpenOption) (*sql.DB, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(mssql.NewConnectorConfig(cfg))
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		// go-mssqldb names the host and the login in connect errors, never
		// the password (TestConnectErrorsDoNotDependOnThePassword).
		return nil, fmt.Errorf("sqlserver: cannot connect to %s: %w", d.Redact(dsn), err)
	}
	return db, nil
}

// Probe learns the version, the flavor and what this login may read.
func (Dialect) Probe(ctx context.Context, q dialects.Querier) (dialects.Server, error) {
	s := dialects.Server{Dialect: Name}
	var product, server, login, user string
	var edition int
	var sysadmin, dbowner, backupop, stateReader sql.NullInt64
	var tempdbCreated sql.NullTime
	var recovery, objective sql.NullString
	err := queries.QueryRow(ctx, q, Name, "probe", 0).Scan(
		&product, &edition, &server, &s.Database, &login, &user, &sysadmin, &dbowner, &backupop, &tempdbCreated, &recovery,
		&objective, &stateReader)
	if err != nil {
		return s, fmt.Errorf("sqlserver: probe: %w", err)
	}
	s.Version, s.User = product, user
	s.SetProp(PropLogin, login)
	s.SetProp(PropEngineEdition, strconv.Itoa(edition))
	s.SetProp(PropRecoveryModel, recovery.String)
	s.SetProp(PropServiceObjective, objective.String)
	switch edition {
	case engineAzureSQLDatabase:
		s.Flavor, s.VersionNum = FlavorAzureSQLDatabase, AzureVersionNum
	case engineAzureManagedInstnc:
		s.Flavor, s.VersionNum = FlavorManagedInstance, AzureVersionNum
	default:
		v, err := ParseVersion(product)
		if err != nil {
			return s, fmt.Errorf("sqlserver: probe: %w", err)
		}
		s.VersionNum = v
	}
	if !supportedVersion(s.VersionNum) {
		return s, fmt.Errorf("sqlserver: SQL Server %s is %w: writeamp needs SQL Server 2016 (13.x) or later", product, dialects.ErrUnsupported)
	}
	if tempdbCreated.Valid {
		s.StartedAt = tempdbCreated.Time.UTC()
	}
	s.Identity = server + "/" + s.Database
	v := s.VersionNum

	s.SetReason(CapOptimizeSequentialKey, supportsOptimizeForSequentialKey(v), dialects.Reason{Kind: dialects.Version, Text: "OPTIMIZE_FOR_SEQUENTIAL_KEY needs SQL Server 2019 or later"})
	s.Set(CapDatabaseWaitStats, s.Flavor == FlavorAzureSQLDatabase, "sys.dm_db_wait_stats is Azure SQL Database's; this server has sys.dm_os_wait_stats")

	isSysadmin := one(sysadmin)
	s.Set("sysadmin", isSysadmin, "")
	s.SetReason(CapCheckpoint, isSysadmin || one(dbowner) || one(backupop), dialects.Reason{Kind: dialects.Privilege,
		Text: "CHECKPOINT needs sysadmin, db_owner or db_backupoperator", Fix: "ALTER ROLE db_backupoperator ADD MEMBER " + QuoteIdent(user)})
	switch {
	case s.Flavor == FlavorAzureSQLDatabase:
		s.Set(CapFnDblog, false, "sys.fn_dblog needs sysadmin, which Azure SQL Database has no such role for; per-index log bytes are unavailable there")
	default:
		s.SetReason(CapFnDblog, isSysadmin, dialects.Reason{Kind: dialects.Privilege,
			Text: "per-index log bytes read sys.fn_dblog, which needs sysadmin (grant it on a test server only)", Fix: "ALTER SERVER ROLE sysadmin ADD MEMBER " + QuoteIdent(login)})
	}
	if err := probeRole(ctx, q, &s); err != nil {
		return s, err
	}

	var dbState, srvState, dbStateFull sql.NullInt64
	if err := queries.QueryRow(ctx, q, Name, "permissions", v).Scan(&dbState, &srvState, &dbStateFull); err != nil {
		return s, fmt.Errorf("sqlserver: probe permissions: %w", err)
	}
	set := func(c string, ok bool, sc Scope) {
		p, g := Privilege(s, sc)
		s.SetReason(c, ok, dialects.Reason{Kind: dialects.Privilege, Text: "missing " + p, Fix: g})
	}
	set(CapViewDatabaseState, one(dbState), DatabaseScope)
	set(CapViewDatabaseStateFull, one(dbStateFull), DatabaseStateScope)
	if s.Flavor != FlavorAzureSQLDatabase {
		set(CapViewServerState, one(srvState), ServerScope)
		set(CapInstanceDMVs, one(srvState), InstanceScope)
		return s, nil
	}
	// Azure SQL Database has no server-level permissions: the file DMV
	// answers for this database and checks the database permission. The
	// instance DMVs depend on the service objective; where the admin is
	// needed and this login is neither it nor a known ##MS_ServerStateReader##
	// member, nothing is promised either way: the query decides, and its
	// refusal names the fix.
	set(CapViewServerState, s.Has(CapViewDatabaseState), ServerScope)
	admin := strings.EqualFold(user, "dbo") || one(stateReader)
	switch {
	case RestrictedTier(s) && admin:
		s.Set(CapInstanceDMVs, true, "")
	case RestrictedTier(s) && stateReader.Valid:
		set(CapInstanceDMVs, false, InstanceScope)
	case RestrictedTier(s):
		// IS_SRVROLEMEMBER gave no answer: leave it unprobed.
	default:
		set(CapInstanceDMVs, admin || one(dbStateFull), InstanceScope)
	}
	return s, nil
}

func one(n sql.NullInt64) bool { return n.Valid && n.Int64 == 1 }

// ParseVersion turns ProductVersion ("16.0.4135.4") into VersionNum.
func ParseVersion(product string) (int, error) {
	parts := strings.Split(product, ".")
	if len(parts) < 3 {
		return 0, fmt.Errorf("cannot read the version %q", product)
	}
	major, err1 := strconv.Atoi(parts[0])
	build, err2 := strconv.Atoi(parts[2])
	if err := errors.Join(err1, err2); err != nil || build >= 100000 {
		return 0, fmt.Errorf("cannot read the version %q", product)
	}
	return major*100000 + build, nil
}

// QuoteIdent quotes an identifier for T-SQL, as QUOTENAME does.
func QuoteIdent(s string) string { return "[" + strings.ReplaceAll(s, "]", "]]") + "]" }
