package dialects

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Querier is what collectors and probes need: satisfied by *sql.DB, *sql.Conn
// and *sql.Tx, so a snapshot can run inside one read-only transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Server is what a probe learned about the database writeamp talks to.
type Server struct {
	Dialect    string `json:"dialect"`
	Version    string `json:"version"`
	VersionNum int    `json:"version_num"` // dialect-specific ordering number, e.g. 150020 for PG 15.20
	Flavor     string `json:"flavor"`      // "mariadb", "azure", "" ...
	Database   string `json:"database,omitempty"`
	User       string `json:"user,omitempty"`
	// Identity and StartedAt let a diff refuse snapshots from another server
	// or from before a restart (the counters would have been reset).
	Identity  string    `json:"identity,omitempty"`
	StartedAt time.Time `json:"started_at,omitempty"`
	// Caps are named capabilities (e.g. "pg_walinspect", "checkpoint"); a
	// missing key means "no". Reasons says why a capability is missing and,
	// where a privilege is the cause, the statement that grants it.
	Caps    map[string]bool   `json:"capabilities,omitempty"`
	Reasons map[string]string `json:"missing_reasons,omitempty"`
	// Details are the same reasons typed (kind, text, fix apart); Reasons
	// stays their rendered form, as older snapshot files hold it.
	Details map[string]Reason `json:"missing_details,omitempty"`
	// Props are facts collectors need (e.g. the database oid, the schema an
	// extension lives in).
	Props map[string]string `json:"properties,omitempty"`
}

// Prop returns a property ("" when unset).
func (s Server) Prop(k string) string { return s.Props[k] }

// PropNoCheckpoint, when set, tells a dialect's BeforeMeasure not to
// CHECKPOINT before the window; its value says why (--checkpoint none|steady).
const PropNoCheckpoint = "no_checkpoint"

// PropSettingPrefix marks the properties that are server settings the
// result records (result.Server.Settings, without the prefix): facts a
// later reading of the result needs, such as the checkpoint settings plan
// names beside full-page images.
const PropSettingPrefix = "setting."

// Settings are the properties under PropSettingPrefix, prefix removed (nil
// when there are none).
func (s Server) Settings() map[string]string {
	var out map[string]string
	for k, v := range s.Props {
		if name, ok := strings.CutPrefix(k, PropSettingPrefix); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}

// SetProp records a property.
func (s *Server) SetProp(k, v string) {
	if s.Props == nil {
		s.Props = map[string]string{}
	}
	s.Props[k] = v
}

// Has reports whether the server has the named capability.
func (s Server) Has(c string) bool { return s.Caps[c] }

// Set records a capability and, when missing, the reason.
func (s *Server) Set(c string, ok bool, reason string) {
	if s.Caps == nil {
		s.Caps = map[string]bool{}
	}
	s.Caps[c] = ok
	delete(s.Details, c)
	if !ok && reason != "" {
		if s.Reasons == nil {
			s.Reasons = map[string]string{}
		}
		s.Reasons[c] = reason
	}
}

// Why returns the reason a capability is missing.
func (s Server) Why(c string) string {
	if r := s.Reasons[c]; r != "" {
		return r
	}
	return c + " is not available on this server"
}

// String is the human form used in report headers.
func (s Server) String() string {
	name := map[string]string{"postgres": "PostgreSQL", "mysql": "MySQL", "sqlserver": "SQL Server", "oracle": "Oracle"}[s.Dialect]
	if s.Flavor == "mariadb" {
		name = "MariaDB"
	}
	if name == "" {
		name = s.Dialect
	}
	return strings.TrimSpace(name + " " + s.Version)
}

// Dialect is one database family.
type Dialect interface {
	Name() string
	// Schemes are the DSN URL schemes that select this dialect.
	Schemes() []string
	// Open connects and checks the server answers; opts it cannot honour
	// (OpenOptions) it ignores.
	Open(ctx context.Context, dsn string, opts ...OpenOption) (*sql.DB, error)
	Probe(ctx context.Context, q Querier) (Server, error)
	// Redact returns the DSN with any password replaced, for messages.
	Redact(dsn string) string
	// Every dialect prepares and settles a window, names a session and
	// enters a schema: a method renamed in one of them fails to compile
	// rather than silently stop settling.
	Settler
	SessionIDer
	SchemaEnterer
}

// Settler is implemented by dialects that must prepare the server before a
// measured phase (e.g. CHECKPOINT) or let background work settle after it
// (e.g. stats flush, purge). Both return warnings, not errors: a measurement
// that could not settle is still a measurement, with a note.
type Settler interface {
	BeforeMeasure(ctx context.Context, db *sql.DB, s Server) []string
	// Settle runs after the workload and before the "after" snapshot;
	// schemas are the ones in scope.
	Settle(ctx context.Context, db *sql.DB, s Server, schemas []string) []string
}

// AfterCheckpoint is what BeforeMeasure returns, among its warnings, when it
// ran a checkpoint right before the window: not a failure but a fact every
// report states beside the log bytes (measure adds the window's full-page
// image share to it), since it makes them larger than in steady state.
const AfterCheckpoint = "the window starts right after a CHECKPOINT, so the first change to each page in it wrote a full-page image: the log bytes include more of them than the same workload writes in steady state"

// ScopedSettler is a Settler whose preparation depends on the schemas the
// window measures (PostgreSQL 13/14 waits for their statistics to arrive).
type ScopedSettler interface {
	BeforeMeasureScope(ctx context.Context, db *sql.DB, s Server, schemas []string) []string
}

// BeforeMeasure prepares the server for a window on these schemas.
func BeforeMeasure(ctx context.Context, st Settler, db *sql.DB, s Server, schemas []string) []string {
	if ss, ok := st.(ScopedSettler); ok {
		return ss.BeforeMeasureScope(ctx, db, s, schemas)
	}
	return st.BeforeMeasure(ctx, db, s)
}

// Instrumenter is implemented by dialects that can turn on a better source
// for the measured window (create pg_walinspect, enable InnoDB monitors).
// It updates s to say what is now available, and returns the undo that
// restores the server exactly as it was; undo runs on success, error and
// interrupt alike.
type Instrumenter interface {
	Instrument(ctx context.Context, db *sql.DB, s *Server) (undo func(context.Context) error, warnings []string)
}

// WALHolder is implemented by dialects whose log of a window is read after
// the window (PostgreSQL: pg_walinspect) and can be kept on the server until
// then. HoldWAL keeps it for this process's lifetime (the server lets go if
// the process dies); ReserveWAL keeps it for a snapshot file until
// ReleaseWAL, which a diff calls after reading the window.
type WALHolder interface {
	HoldWAL(ctx context.Context, db *sql.DB, s Server) (release func(context.Context) error, err error)
	ReserveWAL(ctx context.Context, db *sql.DB, s Server) (name string, err error)
	ReleaseWAL(ctx context.Context, db *sql.DB, s Server, name string) error
	// StaleReservations describes reservations older than age that nothing
	// uses (a snapshot never diffed), with how to drop them.
	StaleReservations(ctx context.Context, db *sql.DB, s Server, age time.Duration) []string
}

// MarkWALSlot is the snapshot mark naming the reservation ReserveWAL made.
const MarkWALSlot = "wal_slot"

// StatefulInstrumenter is an Instrumenter whose undo can be written down and
// run by a later process: `snapshot --enable-monitors` leaves the
// instrumentation on for the window between two snapshots, and `diff`
// undoes it from the state the first snapshot file recorded ("" when
// nothing was changed).
type StatefulInstrumenter interface {
	InstrumentState(ctx context.Context, db *sql.DB, s *Server) (state string, notes []string)
	RestoreState(ctx context.Context, db *sql.DB, s Server, state string) error
}

// SessionEnder is implemented by dialects whose statistics are published only
// when a session says so (PostgreSQL 15+: pg_stat_force_next_flush()). A
// workload calls it as the last statement of every connection it used.
type SessionEnder interface {
	EndSession(ctx context.Context, conn *sql.Conn, s Server) error
}

// SessionIDer is implemented by dialects that can name a connection's server
// session (PostgreSQL pid, PROCESSLIST.ID, @@SPID, V$SESSION.SID): the
// workload's runner reports each worker's, so the wait samplers tell the
// workload's sessions from every other and know which operation each runs.
type SessionIDer interface {
	SessionID(ctx context.Context, conn *sql.Conn) (string, error)
}

// ErrInUse is what an Instrumenter's undo returns when it left something in
// place because another writeamp run still uses it (and will remove it):
// a note, not a failure.
var ErrInUse = errors.New("in use by another writeamp run")

// LeftoverFinder is implemented by dialects whose instrumentation can be
// left behind by a run that did not finish (kill -9, a crash): Leftovers
// lists what no run uses any more and, with drop, removes it.
type LeftoverFinder interface {
	Leftovers(ctx context.Context, db *sql.DB, s Server, drop bool) ([]string, error)
}

// ErrUnsupported marks a capability the server cannot provide.
var ErrUnsupported = errors.New("unsupported")

// PrivilegeError says which privilege is missing and the statement that fixes it.
type PrivilegeError struct {
	Privilege string
	Grant     string
	Err       error
}

func (e *PrivilegeError) Error() string {
	msg := "missing privilege " + e.Privilege
	if e.Grant != "" {
		msg += " (fix: " + e.Grant + ")"
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *PrivilegeError) Unwrap() error { return e.Err }

var (
	mu       sync.RWMutex
	registry = map[string]Dialect{}
)

// Register adds a dialect; dialect packages call it from init.
func Register(d Dialect) {
	mu.Lock()
	defer mu.Unlock()
	registry[d.Name()] = d
}

// Get returns a registered dialect by name.
func Get(name string) (Dialect, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := registry[name]
	return d, ok
}

// Names lists the registered dialects.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// ForDSN picks the dialect from the DSN's URL scheme, or from the form of
// the DSN (libpq key=value, MySQL user@tcp(...)). Errors never quote the
// DSN: it may hold a password.
func ForDSN(dsn string) (Dialect, error) {
	scheme, _, ok := strings.Cut(dsn, "://")
	mysqlForm := strings.Contains(dsn, "@tcp(") || strings.Contains(dsn, "@unix(") || strings.Contains(dsn, "@tcp6(")
	switch {
	case ok && schemeRe.MatchString(scheme) && Known(scheme):
	case mysqlForm:
		scheme = "mysql"
	case !ok && strings.Contains(dsn, "="):
		scheme = "postgres" // libpq key=value strings ("host=... dbname=...") are PostgreSQL's
	case ok && schemeRe.MatchString(scheme):
		return nil, fmt.Errorf("--dsn: unknown scheme %q (known: %s)", scheme, strings.Join(schemes(), ", "))
	default:
		return nil, fmt.Errorf("--dsn: cannot tell the database from the DSN (not shown: it may hold a password): use a URL such as postgres://user@host:5432/db, mysql://user@host:3306/db, sqlserver://user@host:1433?database=db or oracle://user@host:1521/service")
	}
	scheme = strings.ToLower(scheme)
	mu.RLock()
	defer mu.RUnlock()
	for _, d := range registry {
		if slices.Contains(d.Schemes(), scheme) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("--dsn: no dialect for scheme %q", scheme)
}

// Known reports whether a URL scheme selects a registered dialect.
func Known(scheme string) bool {
	return slices.Contains(schemes(), strings.ToLower(scheme))
}

func schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	var known []string
	for _, d := range registry {
		known = append(known, d.Schemes()...)
	}
	sort.Strings(known)
	return known
}

// Identifiers is implemented by dialects to say how the database reads a
// schema or table name as the user typed it (--schema, --table): folded to
// lower or upper case unless quoted, or compared by the server's case rule.
type Identifiers interface {
	// IdentMatcher returns whether a typed name denotes a catalog name, and
	// a sentence saying the rule, for errors.
	IdentMatcher(ctx context.Context, q Querier, s Server) (match func(typed, actual string) bool, rule string, err error)
}

// Unquote strips one pair of the given quotes from a typed name (a doubled
// closing quote inside stands for one) and reports whether it was quoted.
func Unquote(typed string, open, close byte) (string, bool) {
	if len(typed) >= 2 && typed[0] == open && typed[len(typed)-1] == close {
		inner := typed[1 : len(typed)-1]
		return strings.ReplaceAll(inner, string([]byte{close, close}), string(close)), true
	}
	return typed, false
}
