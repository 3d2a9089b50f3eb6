package mysql

import "strings"

// performance_schema can only be turned on at server start
// (https://mariadb.com/kb/en/performance-schema-overview/,
// https://dev.mysql.com/doc/refman/8.0/en/performance-schema-startup-configuration.html).

// PerfSchemaInstruments are the instruments writeamp reads from
// events_waits_summary_global_by_event_name, as LIKE patterns: InnoDB's
// mutexes, rw-locks and sx-locks (the index latch index_tree_rw_lock, the
// buffer pool, the lock system), InnoDB's file I/O, and the SQL layer's table
// and metadata locks.
var PerfSchemaInstruments = []string{"wait/synch/%/innodb/%", "wait/io/file/innodb/%", "wait/lock/table/sql/handler", "wait/lock/metadata/sql/mdl"}

// PerfSchemaOff says how to turn performance_schema and the wait
// instruments on when the server runs without it.
const PerfSchemaOff = "performance_schema is OFF, and only a restart turns it on: add to the server's configuration " +
	"([mysqld] section; MariaDB also reads [mariadb]) the lines performance_schema = ON, " +
	"performance_schema_instrument = 'wait/synch/%/innodb/%=ON', performance_schema_instrument = 'wait/io/file/innodb/%=ON', " +
	"performance_schema_instrument = 'wait/lock/%=ON' and performance_schema_consumer_global_instrumentation = ON, then restart the server " +
	"(the row-lock waits and the sampled wait shares need none of it)"

// PerfSchemaEnable is the statement that turns the instruments and the
// consumer on at run time, once performance_schema is on (needs UPDATE on
// performance_schema.setup_instruments and setup_consumers).
const PerfSchemaEnable = "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' " +
	"WHERE NAME LIKE 'wait/synch/%/innodb/%' OR NAME LIKE 'wait/io/file/innodb/%' OR NAME LIKE 'wait/lock/%'; " +
	"UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'global_instrumentation'"

// ProgramName is the connection attribute writeamp's sessions carry
// (performance_schema.session_connect_attrs), so the wait sampler can tell
// them from other clients' when performance_schema is on.
const ProgramName = "writeamp"

// withProgramName adds program_name:writeamp to the connection attributes
// unless they name a program already.
func withProgramName(attrs string) string {
	if strings.Contains(attrs, "program_name:") {
		return attrs
	}
	return strings.TrimPrefix(attrs+",program_name:"+ProgramName, ",")
}
