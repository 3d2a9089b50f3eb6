package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
)

// EventsStatementsSummaryByDigest reads performance_schema's per-digest
// statement statistics, so a window lists its statements with the rows
// they changed, examined and sent, their time, temporary tables and
// whether they used no index. InnoDB keeps no per-statement redo, so the
// statements are ranked by rows changed.
type EventsStatementsSummaryByDigest struct{}

func (EventsStatementsSummaryByDigest) Name() string { return "events_statements_summary_by_digest" }

// Supports is nil: whether performance_schema is on is read with the rows.
func (EventsStatementsSummaryByDigest) Supports(dialects.Server) error { return nil }

// digestConsumerFix turns the digest consumers on at run time.
const digestConsumerFix = "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ('global_instrumentation', 'statements_digest')"

func (EventsStatementsSummaryByDigest) Statements(ctx context.Context, qr dialects.Querier, s dialects.Server) (*collectors.Statements, error) {
	var psOn bool
	if err := queries.QueryRow(ctx, qr, my.Name, "performance_schema_on", s.VersionNum).Scan(&psOn); err != nil {
		return nil, err
	}
	if !psOn {
		return nil, fmt.Errorf("%w: %s", dialects.ErrUnsupported, my.PerfSchemaOff)
	}
	grant := psGrant + s.Prop(my.PropHostUser)
	var on bool
	err := queries.QueryRow(ctx, qr, my.Name, "statements_digest_on", s.VersionNum).Scan(&on)
	if pe := my.AsPrivilegeError(err, s, "SELECT on performance_schema", grant); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	if !on {
		return nil, fmt.Errorf("%w: the performance_schema consumers statements_digest and global_instrumentation must be on to summarise statements (fix: %s)", dialects.ErrUnsupported, digestConsumerFix)
	}
	rows, err := queries.Query(ctx, qr, my.Name, "events_statements_summary_by_digest", s.VersionNum)
	if pe := my.AsPrivilegeError(err, s, "SELECT on performance_schema", grant); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	st := &collectors.Statements{
		View: "performance_schema.events_statements_summary_by_digest",
		Sources: map[string]string{"calls": "COUNT_STAR", "rows": "SUM_ROWS_AFFECTED", "rows_sent": "SUM_ROWS_SENT",
			"rows_examined": "SUM_ROWS_EXAMINED", "exec_ms": "SUM_TIMER_WAIT (ps / 10^9)", "tmp_tables": "SUM_CREATED_TMP_TABLES",
			"tmp_disk_tables": "SUM_CREATED_TMP_DISK_TABLES", "no_index_used": "SUM_NO_INDEX_USED"},
		Merge: "entries are per default schema and digest: statements that differ only in literals share one",
	}
	for rows.Next() {
		var r collectors.StatementRow
		var calls, affected, sent, examined, ms, tmp, tmpDisk, noIndex float64
		if err := rows.Scan(&r.Key, &r.Text, &r.Since, &calls, &affected, &sent, &examined, &ms, &tmp, &tmpDisk, &noIndex); err != nil {
			return nil, err
		}
		r.Values = map[string]float64{"calls": calls, "rows": affected, "rows_sent": sent, "rows_examined": examined,
			"exec_ms": ms, "tmp_tables": tmp, "tmp_disk_tables": tmpDisk, "no_index_used": noIndex}
		st.Rows = append(st.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var lost float64
	if err := queries.QueryRow(ctx, qr, my.Name, "statements_digest_lost", s.VersionNum).Scan(&lost); err != nil {
		return nil, err
	}
	st.Evictions = &lost
	return st, nil
}
