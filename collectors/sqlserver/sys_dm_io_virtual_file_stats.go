package sqlserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// SysDmIoVirtualFileStats reads the bytes written to this database's log
// file(s). Unlike every other database's log totals, SQL Server's log is per
// database, so this is the workload's log plus only this database's other
// sessions. They are physical bytes: each flush is padded to the sector size,
// so many small commits cost more than their log records.
type SysDmIoVirtualFileStats struct{}

const fileStats = "sys.dm_io_virtual_file_stats"

func (SysDmIoVirtualFileStats) Name() string { return "sys_dm_io_virtual_file_stats" }

func (SysDmIoVirtualFileStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	return need(s, ms.CapViewServerState, ms.ServerScope)
}

func (SysDmIoVirtualFileStats) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, ms.Name, "sys_dm_io_virtual_file_stats", s.VersionNum)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.ServerScope)
	}
	defer rows.Close()
	var writes, bytes, stall float64
	var files []string
	for rows.Next() {
		var id int64
		var name string
		var w, b, st int64
		if err := rows.Scan(&id, &name, &w, &b, &st); err != nil {
			return nil, err
		}
		files = append(files, fmt.Sprint(id))
		writes += float64(w)
		bytes += float64(b)
		stall += float64(st)
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.ServerScope)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no LOG file in sys.database_files for database %s", s.Database)
	}
	sort.Strings(files)
	// A log file added or removed changes what the sum means: a reset.
	id := "log_files=" + strings.Join(files, ",")
	if st := startIdentity(s); st != "" {
		id += " " + st
	}
	c := collectors.NewCounter(collectors.DB, "", result.LogBytes, bytes, result.Exact, fileStats+".num_of_bytes_written (LOG files of this database)", id)
	c.Note = "physical bytes: every log flush padded to the sector size; this database only, all its sessions"
	return []collectors.Counter{
		c,
		collectors.NewCounter(collectors.DB, "", result.LogWrites, writes, result.Exact, fileStats+".num_of_writes (LOG files of this database)", id),
		collectors.NewCounter(collectors.DB, "", result.LogWriteStallMs, stall, result.Exact, fileStats+".io_stall_write_ms (LOG files of this database)", id),
	}, nil
}
