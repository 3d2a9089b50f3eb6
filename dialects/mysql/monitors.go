package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// The INNODB_METRICS counters writeamp reads. All are off by default; a
// measured window turns on the ones that are off when the login may, and
// turns exactly those off again afterwards.
// https://mariadb.com/kb/en/information-schema-innodb_metrics-table/
// https://dev.mysql.com/doc/refman/8.0/en/innodb-information-schema-metrics-table.html
var (
	// IndexMonitors count page splits and merges (module_index).
	IndexMonitors = []string{"index_page_splits", "index_page_merge_attempts", "index_page_merge_successful"}
	// TrxMonitors count transaction ends. InnoDB ends a rollback through its
	// commit path, so every rollback is also one of the *_commits: commits =
	// rw + ro + nl_ro - rollbacks (checked on MariaDB 10.11: BEGIN; UPDATE;
	// ROLLBACK adds 1 to trx_rw_commits and 1 to trx_rollbacks).
	TrxMonitors = []string{"trx_rw_commits", "trx_ro_commits", "trx_nl_ro_commits", "trx_rollbacks"}
)

// Monitors is every counter writeamp reads.
func Monitors() []string { return append(append([]string{}, IndexMonitors...), TrxMonitors...) }

// MonitorPrivilege is the privilege SET GLOBAL innodb_monitor_enable needs:
// SUPER on MariaDB (https://mariadb.com/docs/server/ref/mdb/privileges/SUPER),
// SYSTEM_VARIABLES_ADMIN on MySQL 8 (SUPER is deprecated there:
// https://dev.mysql.com/doc/refman/8.0/en/system-variable-privileges.html).
func MonitorPrivilege(s dialects.Server) string {
	if IsMariaDB(s) {
		return "SUPER"
	}
	return "SYSTEM_VARIABLES_ADMIN"
}

// globalGrant matches a SHOW GRANTS line for the whole server.
var globalGrant = regexp.MustCompile(`(?i)^GRANT\s+(.+?)\s+ON\s+\*\.\*\s+TO\s`)

// mayEnableMonitors reads SHOW GRANTS (which, unlike
// INFORMATION_SCHEMA.USER_PRIVILEGES, includes the privileges of the active
// roles) for ALL PRIVILEGES or the privilege SET GLOBAL needs.
func mayEnableMonitors(grants []string, s dialects.Server) bool {
	want := []string{"ALL PRIVILEGES", MonitorPrivilege(s)}
	if !IsMariaDB(s) {
		want = append(want, "SUPER")
	}
	for _, g := range grants {
		m := globalGrant.FindStringSubmatch(strings.TrimSpace(g))
		if m == nil {
			continue
		}
		for _, p := range strings.Split(m[1], ",") {
			for _, w := range want {
				if strings.EqualFold(strings.TrimSpace(p), w) {
					return true
				}
			}
		}
	}
	return false
}

// roleGrant matches "GRANT `role` TO ...": a role granted, no ON clause.
var roleGrant = regexp.MustCompile(`(?i)^GRANT\s+[^ ]+(\s*,\s*[^ ]+)*\s+TO\s`)

func grantsRole(grants []string) bool {
	for _, g := range grants {
		g = strings.TrimSpace(g)
		if roleGrant.MatchString(g) && !strings.Contains(strings.ToUpper(g), " ON ") {
			return true
		}
	}
	return false
}

// probeMonitors records which counters are counting and whether this login
// may turn them on (CapMonitorAdmin; unprobed when SHOW GRANTS fails).
func probeMonitors(ctx context.Context, q dialects.Querier, s *dialects.Server) error {
	on, err := monitorState(ctx, q, *s)
	if pe := AsPrivilegeError(err, *s, "PROCESS", "GRANT PROCESS ON *.* TO "+s.Prop(PropHostUser)); pe != nil {
		why := dialects.Reason{Kind: dialects.Privilege, Text: "INFORMATION_SCHEMA.INNODB_METRICS needs the PROCESS privilege", Fix: pe.Grant}
		s.Deny(CapInnodbMetrics, why)
		s.Deny(CapIndexMonitor, why)
		s.Deny(CapTrxMonitor, why)
		return nil
	} else if err != nil {
		return fmt.Errorf("mysql: probe INNODB_METRICS: %w", err)
	}
	s.Set(CapInnodbMetrics, true, "")
	if grants, err := showGrants(ctx, q, *s); err == nil {
		may := mayEnableMonitors(grants, *s)
		// MySQL's plain SHOW GRANTS names granted roles without their
		// privileges (MariaDB's lists the active role's): a role may hold
		// the privilege, so "no" would be a guess there; leave it unprobed.
		if may || IsMariaDB(*s) || !grantsRole(grants) {
			s.SetReason(CapMonitorAdmin, may, dialects.Reason{Kind: dialects.Privilege, Text: fmt.Sprintf("SHOW GRANTS lists no %s (or ALL PRIVILEGES) ON *.* for %s", MonitorPrivilege(*s), s.Prop(PropHostUser))})
		}
	}
	s.SetReason(CapIndexMonitor, allOn(on, IndexMonitors), MonitorReason(*s, IndexMonitors))
	s.SetReason(CapTrxMonitor, allOn(on, TrxMonitors), MonitorReason(*s, TrxMonitors))
	return nil
}

func allOn(on map[string]bool, names []string) bool {
	for _, n := range names {
		if !on[n] {
			return false
		}
	}
	return true
}

func showGrants(ctx context.Context, q dialects.Querier, s dialects.Server) ([]string, error) {
	rows, err := queries.Query(ctx, q, Name, "show_grants", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// MonitorReason says why counters are not counting, naming the real cause:
// they are off (the server's default), and turning them on is either
// something this login may do (no GRANT to suggest) or needs the privilege.
func MonitorReason(s dialects.Server, names []string) dialects.Reason {
	list := strings.Join(names, ", ")
	var stmts []string
	for _, m := range []struct {
		module string
		names  []string
	}{{"module_index", IndexMonitors}, {"module_trx", TrxMonitors}} {
		for _, n := range names {
			if n == m.names[0] {
				stmts = append(stmts, "SET GLOBAL innodb_monitor_enable = '"+m.module+"'")
			}
		}
	}
	enable := strings.Join(stmts, "; ")
	if ok, probed := s.Caps[CapMonitorAdmin]; probed && ok {
		return dialects.Reason{Kind: dialects.Setting,
			Text: fmt.Sprintf("the InnoDB monitors %s are off (the server's default); writeamp run and measure turn them on for their window, snapshot does with --enable-monitors", list),
			Fix:  "writeamp snapshot --enable-monitors, which writeamp diff --dsn undoes; or " + enable}
	} else if probed {
		return dialects.Reason{Kind: dialects.Privilege,
			Text: fmt.Sprintf("the InnoDB monitors %s are off and %s may not turn them on: SET GLOBAL needs %s", list, s.Prop(PropHostUser), MonitorPrivilege(s)),
			Fix:  fmt.Sprintf("GRANT %s ON *.* TO %s, or have an administrator run %s", MonitorPrivilege(s), s.Prop(PropHostUser), enable)}
	}
	return dialects.Reason{Kind: dialects.Privilege,
		Text: fmt.Sprintf("the InnoDB monitors %s are off; turning them on needs %s, which SHOW GRANTS could not confirm for %s", list, MonitorPrivilege(s), s.Prop(PropHostUser)),
		Fix:  fmt.Sprintf("writeamp snapshot --enable-monitors if it has it, else GRANT %s ON *.* TO %s, or have an administrator run %s", MonitorPrivilege(s), s.Prop(PropHostUser), enable)}
}

// monitorState reads the on/off state of the counters writeamp reads.
func monitorState(ctx context.Context, q dialects.Querier, s dialects.Server) (map[string]bool, error) {
	rows, err := queries.Query(ctx, q, Name, "monitor_state", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var on bool
		if err := rows.Scan(&name, &on); err != nil {
			return nil, err
		}
		out[name] = on
	}
	return out, rows.Err()
}

// MonitorRestore is what undoing an enable needs: the counters writeamp
// turned on, and whether the innodb_monitor_enable/disable variables were
// NULL (a non-NULL old text is left as it is: setting it again would re-run
// the old command). It is JSON so a snapshot file can carry it to diff.
type MonitorRestore struct {
	Enabled        []string `json:"enabled"`
	EnableVarNull  bool     `json:"enable_var_null"`
	DisableVarNull bool     `json:"disable_var_null"`
}

// enableMonitors turns on the counters that are off, one by one, and
// returns what restores them; nil when nothing was off.
func enableMonitors(ctx context.Context, q dialects.Querier, s *dialects.Server) (*MonitorRestore, error) {
	v := s.VersionNum
	on, err := monitorState(ctx, q, *s)
	if err != nil {
		return nil, fmt.Errorf("read the monitors' state: %w", err)
	}
	r := &MonitorRestore{}
	var enVar, disVar sql.NullString
	if err := queries.QueryRow(ctx, q, Name, "monitor_vars", v).Scan(&enVar, &disVar); err != nil {
		return nil, fmt.Errorf("read innodb_monitor_enable: %w", err)
	}
	r.EnableVarNull, r.DisableVarNull = !enVar.Valid, !disVar.Valid
	for _, n := range Monitors() {
		if on[n] {
			continue
		}
		if _, err := queries.Exec(ctx, q, Name, "monitor_enable", v, n); err != nil {
			if len(r.Enabled) > 0 {
				err = errors.Join(err, RestoreMonitors(context.WithoutCancel(ctx), q, *s, r))
			}
			return nil, err
		}
		r.Enabled = append(r.Enabled, n)
	}
	if len(r.Enabled) == 0 {
		return nil, nil
	}
	return r, nil
}

// RestoreMonitors turns off exactly the counters writeamp turned on, puts
// the variables' text back to NULL where it was NULL, and says the counters
// are off again: Caps is a map shared by every copy of the Server, and a
// later window must not read stale counters.
func RestoreMonitors(ctx context.Context, q dialects.Querier, s dialects.Server, r *MonitorRestore) error {
	if r == nil {
		return nil
	}
	v := s.VersionNum
	var errs []error
	for _, n := range r.Enabled {
		if _, err := queries.Exec(ctx, q, Name, "monitor_disable", v, n); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n, err))
		}
		for _, set := range []struct {
			c     string
			names []string
		}{{CapIndexMonitor, IndexMonitors}, {CapTrxMonitor, TrxMonitors}} {
			if slices.Contains(set.names, n) {
				s.Deny(set.c, MonitorReason(s, set.names))
			}
		}
	}
	if r.EnableVarNull {
		if _, err := queries.Exec(ctx, q, Name, "monitor_enable_var_default", v); err != nil {
			errs = append(errs, err)
		}
	}
	if r.DisableVarNull {
		if _, err := queries.Exec(ctx, q, Name, "monitor_disable_var_default", v); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("mysql: turn the InnoDB monitors writeamp enabled back off (SET GLOBAL innodb_monitor_disable = '%s'): %w", strings.Join(r.Enabled, "', '"), err)
	}
	return nil
}

// enableFailed says what happened when enabling failed: a refused SET
// GLOBAL names the privilege, anything else is passed on.
func enableFailed(s *dialects.Server, err error) []string {
	if pe := AsPrivilegeError(err, *s, MonitorPrivilege(*s), fmt.Sprintf("GRANT %s ON *.* TO %s", MonitorPrivilege(*s), s.Prop(PropHostUser))); pe != nil {
		s.Set(CapMonitorAdmin, false, "SET GLOBAL innodb_monitor_enable was refused: "+err.Error())
		for c, names := range map[string][]string{CapIndexMonitor: IndexMonitors, CapTrxMonitor: TrxMonitors} {
			if !s.Has(c) {
				s.Deny(c, MonitorReason(*s, names))
			}
		}
		return []string{"page splits, merges and transaction counts are unavailable: " + MonitorReason(*s, Monitors()).String()}
	}
	return []string{"InnoDB monitors: " + err.Error()}
}
