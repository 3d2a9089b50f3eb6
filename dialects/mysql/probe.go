package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// ParseVersion turns VERSION() and @@version_comment into the flavor, the
// short version and the VersionNum described at MariaDBBase. MariaDB says so
// in VERSION() ("10.11.19-MariaDB-0+deb12u1"; older clients see a
// "5.5.5-" prefix) or in the comment ("mariadb.org binary distribution").
func ParseVersion(version, comment string) (flavor, short string, num int, err error) {
	v := strings.TrimPrefix(version, "5.5.5-")
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", 0, fmt.Errorf("mysql: cannot read the server version from %q", version)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	patch, _ := strconv.Atoi(m[3])
	num = major*10000 + minor*100 + patch
	short = fmt.Sprintf("%d.%d.%d", major, minor, patch)
	flavor = FlavorMySQL
	if strings.Contains(strings.ToLower(version), "mariadb") || strings.Contains(strings.ToLower(comment), "mariadb") {
		flavor = FlavorMariaDB
		num += MariaDBBase
	}
	return flavor, short, num, nil
}

// Probe learns the flavor, version and what this login may read. Names that
// differ between flavors and versions are probed (which status variables
// exist, whether INNODB_METRICS answers), not guessed from the version.
func (Dialect) Probe(ctx context.Context, q dialects.Querier) (dialects.Server, error) {
	s := dialects.Server{Dialect: Name}
	var version, comment, user, host string
	var db sql.NullString
	var port, serverID int64
	var logBin, readOnly, perfSchema int64
	err := queries.QueryRow(ctx, q, Name, "probe", 0).Scan(
		&version, &comment, &db, &user, &host, &port, &serverID, &logBin, &readOnly, &perfSchema)
	if err != nil {
		return s, fmt.Errorf("mysql: probe: %w", err)
	}
	s.Flavor, s.Version, s.VersionNum, err = ParseVersion(version, comment)
	if err != nil {
		return s, err
	}
	s.Database, s.User = db.String, user
	// Identity tells servers apart. StartedAt stays unset: it could only be
	// computed as now - Uptime, which jitters by a second between two probes
	// and would make SameServer refuse a valid diff; a restart still shows,
	// as counters that went down.
	s.Identity = fmt.Sprintf("%s:%d/server_id=%d", host, port, serverID)
	s.SetProp(PropHostUser, Grantee(user))
	s.SetProp("version_full", version)
	v := s.VersionNum

	present, err := statusNames(ctx, q, v)
	if err != nil {
		return s, fmt.Errorf("mysql: probe status variables: %w", err)
	}
	s.Set(CapRedoLSN, present["Innodb_redo_log_current_lsn"], redoReason(v))
	s.Set(CapLSNCurrent, present["Innodb_lsn_current"], "Innodb_lsn_current is a MariaDB status variable")
	s.Set(CapInnodbRows, present["Innodb_rows_inserted"], "Innodb_rows_inserted/updated/deleted are not kept by this server (MariaDB 10.11 dropped them): row counts come from Handler_write/update/delete (all engines)")
	s.Set(CapHistoryStatus, present["Innodb_history_list_length"], "Innodb_history_list_length is a MariaDB status variable")
	s.SetReason(CapBinlog, logBin != 0, dialects.Reason{Kind: dialects.Setting, Text: "binary logging is off (log_bin = OFF): no binlog bytes to measure"})
	switch {
	case logBin == 0:
		s.Set(CapBinlogStatus, false, s.Why(CapBinlog))
		s.Set(CapPerfSchemaBinlog, false, s.Why(CapBinlog))
	case present["Binlog_bytes_written"]:
		s.Set(CapBinlogStatus, true, "")
		s.Set(CapPerfSchemaBinlog, false, "binlog bytes come from Binlog_bytes_written on this server")
	default:
		s.Set(CapBinlogStatus, false, "Binlog_bytes_written is a MariaDB status variable")
		s.Set(CapPerfSchemaBinlog, perfSchema != 0, "performance_schema is off (performance_schema = OFF in the server's configuration): no binlog file I/O figures")
	}
	if readOnly != 0 {
		s.SetProp("read_only", "true")
	}

	probeTableRows(ctx, q, &s, perfSchema != 0)
	probeReplica(ctx, q, &s)

	// INNODB_METRICS needs PROCESS; asking is the probe.
	if err := probeMonitors(ctx, q, &s); err != nil {
		return s, err
	}

	var n int64
	err = queries.QueryRow(ctx, q, Name, "index_stats_probe", v).Scan(&n)
	if pe := AsPrivilegeError(err, s, "SELECT on mysql.innodb_index_stats", "GRANT SELECT ON mysql.innodb_index_stats TO "+s.Prop(PropHostUser)); pe != nil {
		s.Deny(CapIndexStats, dialects.Reason{Kind: dialects.Privilege, Text: "mysql.innodb_index_stats is not readable", Fix: pe.Grant})
	} else if err != nil {
		s.Deny(CapIndexStats, dialects.Reason{Kind: dialects.Unreadable, Text: "mysql.innodb_index_stats: " + err.Error()})
	} else {
		s.Set(CapIndexStats, true, "")
	}
	return s, nil
}

func redoReason(v int) string {
	if isMariaDB(v) {
		return "Innodb_redo_log_current_lsn is a MySQL 8.0.30+ status variable (MariaDB has Innodb_lsn_current)"
	}
	if !supportsRedoLSNStatus(v) {
		return "Innodb_redo_log_current_lsn needs MySQL 8.0.30 or later: redo bytes come from Innodb_os_log_written (includes block rewrites)"
	}
	return "Innodb_redo_log_current_lsn is missing on this server"
}

func statusNames(ctx context.Context, q dialects.Querier, v int) (map[string]bool, error) {
	rows, err := queries.Query(ctx, q, Name, "status_names", v)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}
