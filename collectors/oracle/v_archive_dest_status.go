package oracle

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
)

// VArchiveDestStatus marks, on a primary, each configured archive
// destination with its name, type and status: ArchivedLogShipped names the
// window's archived logs after them, and tells the local archive (the
// counterpart of PostgreSQL's WAL archive) from the standbys it ships to.
type VArchiveDestStatus struct{}

// markDest prefixes one destination's mark, "oracle_archive_dest:<DEST_ID>"
// = "TYPE\tSTATUS\tDEST_NAME"; the bare prefix holds a failed read.
const markDest = "oracle_archive_dest:"

func (VArchiveDestStatus) Name() string { return "v_archive_dest_status" }

func (VArchiveDestStatus) Supports(s dialects.Server) error {
	return primaryOnly(s, "V$ARCHIVE_DEST_STATUS: the destinations a primary ships its redo to")
}

// Marks never fails the snapshot: a login that may not read the view leaves
// a mark saying why, and the interval collector reports it.
func (VArchiveDestStatus) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	out := map[string]string{}
	rows, err := queries.Query(ctx, qr, ora.Name, "v_archive_dest_status", s.VersionNum)
	if err != nil {
		out[markDest] = "error: " + ora.AsPrivilegeError(err, s, "v_$archive_dest_status").Error()
		return out, nil
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name, status, typ sql.NullString
		if err := rows.Scan(&id, &name, &status, &typ); err != nil {
			out[markDest] = "error: " + err.Error()
			return out, nil
		}
		out[markDest+strconv.FormatInt(id, 10)] = strings.Join([]string{typ.String, status.String, name.String}, "\t")
	}
	if err := rows.Err(); err != nil {
		out[markDest] = "error: " + ora.AsPrivilegeError(err, s, "v_$archive_dest_status").Error()
	}
	return out, nil
}

// archiveDest is one destination as a snapshot marked it.
type archiveDest struct {
	id                 int64
	typ, status, name  string
	local, valid, seen bool
}

// replica is the destination's name in the per-standby family: the
// LOG_ARCHIVE_DEST_n parameter it is configured by, as the primary knows it.
func (d archiveDest) replica() string {
	if d.name == "" {
		return "dest_" + strconv.FormatInt(d.id, 10)
	}
	return strings.ToLower(d.name)
}

// destMarks are a snapshot's destinations by DEST_ID, or the error that kept
// them from being read.
func destMarks(snap *collectors.Snapshot) (map[int64]archiveDest, string) {
	out := map[int64]archiveDest{}
	for k, v := range snap.Marks {
		rest, ok := strings.CutPrefix(k, markDest)
		if !ok {
			continue
		}
		if rest == "" {
			return nil, strings.TrimPrefix(v, "error: ")
		}
		id, err := strconv.ParseInt(rest, 10, 64)
		f := strings.SplitN(v, "\t", 3)
		if err != nil || len(f) != 3 {
			continue
		}
		out[id] = archiveDest{id: id, typ: f[0], status: f[1], name: f[2], local: f[0] == "LOCAL", valid: f[1] == "VALID", seen: true}
	}
	return out, ""
}

func sortedDests(m map[int64]archiveDest) []archiveDest {
	out := make([]archiveDest, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
