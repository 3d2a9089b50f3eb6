package doctor

import (
	"context"
	"crypto/rand"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
)

//go:embed mysql.sql
var mysqlSQL string

// query returns one of doctor's own statements, with {{schema}} replaced.
func query(dialect, name, schema string) string {
	text := map[string]string{"postgres": postgresSQL, "mysql": mysqlSQL}[dialect]
	bs, err := queries.Parse(dialect, "doctor/"+dialect+".sql", text)
	if err != nil {
		panic(err)
	}
	for _, b := range bs {
		if b.Name == name {
			return strings.ReplaceAll(b.SQL, "{{schema}}", schema)
		}
	}
	panic("doctor: no query " + name)
}

func statements(block string) []string {
	var out []string
	for _, s := range strings.Split(block, ";\n") {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func trialName() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "writeamp_doctor_" + hex.EncodeToString(b)
}

const trialGives = "the refresh-token workload creates its own schema (writeamp_rt_*), writes to it and drops it afterwards"

// pgTrial does what run does first (create a schema, a table, write a row)
// in a transaction it rolls back: a read-only session (for instance
// default_transaction_read_only = on for the role or the database), a
// standby or a missing privilege show here instead of at run's CREATE SCHEMA.
func pgTrial(ctx context.Context, db *sql.DB, s dialects.Server) Item {
	it := Item{Name: "create schema", Kind: "privilege", Needed: true, For: "run", Gives: trialGives,
		Without: "writeamp run cannot create its tables (measure/check -- COMMAND still work)"}
	tx, err := db.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		for _, stmt := range statements(query("postgres", "trial", trialName())) {
			if _, err = tx.ExecContext(ctx, stmt); err != nil {
				break
			}
		}
	}
	if err == nil {
		it.Available = true
		return it
	}
	user, dbname := pg.QuoteIdent(s.User), pg.QuoteIdent(s.Database)
	switch sqlState(err) {
	case "25006": // read_only_sql_transaction
		if !s.Has("primary") {
			it.Reason, it.Fix = "the server is a standby (in recovery): it runs no writes", "point --dsn at the primary"
			return it
		}
		var setting, source string
		db.QueryRowContext(ctx, query("postgres", "read_only_setting", "")).Scan(&setting, &source)
		it.Reason = fmt.Sprintf("sessions of %s in database %s are read-only: default_transaction_read_only = %s (set by %s)", s.User, s.Database, setting, source)
		switch source {
		case "database":
			it.Fix = fmt.Sprintf("ALTER DATABASE %s SET default_transaction_read_only = off", dbname)
		case "database user":
			it.Fix = fmt.Sprintf("ALTER ROLE %s IN DATABASE %s SET default_transaction_read_only = off", user, dbname)
		case "configuration file":
			it.Fix = fmt.Sprintf("default_transaction_read_only = off in postgresql.conf, or ALTER ROLE %s SET default_transaction_read_only = off", user)
		default:
			it.Fix = fmt.Sprintf("ALTER ROLE %s SET default_transaction_read_only = off", user)
		}
	case "42501": // insufficient_privilege
		it.Reason = fmt.Sprintf("%s may not create schemas in database %s", s.User, s.Database)
		it.Fix = fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s", dbname, user)
	default:
		it.Reason = "a trial CREATE SCHEMA, CREATE TABLE and INSERT (rolled back) failed: " + err.Error()
	}
	return it
}

// mysqlTrial does what run does first: create a database, an InnoDB table,
// and write a row in a transaction; the database is dropped again whatever
// happened (DDL is not transactional in MySQL).
func mysqlTrial(ctx context.Context, db *sql.DB, s dialects.Server) Item {
	it := Item{Name: "create schema", Kind: "privilege", Needed: true, For: "run", Gives: trialGives,
		Without: "writeamp run cannot create its tables (measure/check -- COMMAND still work)"}
	name := trialName()
	conn, err := db.Conn(ctx)
	if err == nil {
		defer conn.Close()
		defer conn.ExecContext(context.WithoutCancel(ctx), query("mysql", "trial_drop", name))
		for _, stmt := range statements(query("mysql", "trial", name)) {
			if _, err = conn.ExecContext(ctx, stmt); err != nil {
				break
			}
		}
	}
	if err == nil {
		var tx *sql.Tx
		if tx, err = conn.BeginTx(ctx, nil); err == nil {
			if _, err = tx.ExecContext(ctx, query("mysql", "trial_write", name)); err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
	}
	if err == nil {
		it.Available = true
		return it
	}
	var me *driver.MySQLError
	number := uint16(0)
	if errors.As(err, &me) {
		number = me.Number
	}
	grantee := s.Prop(my.PropHostUser)
	switch number {
	case 1290: // ER_OPTION_PREVENTS_STATEMENT: read_only / super_read_only
		it.Reason = "the server runs read-only (read_only or super_read_only = ON): " + err.Error()
		it.Fix = "point --dsn at the primary, or as an administrator: SET GLOBAL read_only = OFF"
	case 1792: // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
		it.Reason = fmt.Sprintf("transactions of %s are read-only (transaction_read_only = ON)", grantee)
		it.Fix = "SET GLOBAL transaction_read_only = OFF (or remove it from init_connect / the user's defaults)"
	case 1044, 1142, 1227:
		it.Reason = fmt.Sprintf("%s may not create a database and tables: %v", grantee, err)
		it.Fix = fmt.Sprintf("GRANT CREATE, DROP, ALTER, INDEX, INSERT, UPDATE, DELETE, SELECT ON *.* TO %s", grantee)
	default:
		it.Reason = "a trial CREATE DATABASE, CREATE TABLE and INSERT (dropped again) failed: " + err.Error()
	}
	return it
}

func sqlState(err error) string {
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		return st.SQLState()
	}
	return ""
}

// standbyRows is doctor's word on a standby's row counters, as run and
// measure report them there.
var standbyRows = Item{Name: "row counters on a standby", Kind: "capability", Available: false,
	Gives:   "rows inserted/updated/deleted and HOT updates per table",
	Reason:  "the server is a standby: it does not count replayed rows (pg_stat_user_tables stays at zero there)",
	Fix:     "point --dsn at the primary for row and HOT counts",
	Without: "those rows are unavailable, never 0; log bytes and records, leaf inserts and page splits per relation come from the WAL the standby replayed"}

// replicaTrial is doctor's word on a MySQL/MariaDB replica, where run
// refuses to write its workload (its tables would diverge the replica from
// its primary) and doctor tries no write either.
func replicaTrial(s dialects.Server) Item {
	return Item{Name: "create schema", Kind: "capability", Needed: true, For: "run", Available: false, Gives: trialGives,
		Reason:  "the server is a replica (of " + s.Prop(my.PropReplicaOf) + "): writeamp run writes nothing there, its workload's tables would diverge it from its primary",
		Fix:     "run on the primary with --node for this replica; measure --dsn <this replica> -- COMMAND measures what it applies",
		Without: "on a replica: the primary's binlog received and applied (exact), transactions applied, rows applied (derived), apply lag (sampled)"}
}
