package doctor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// Purposes are the commands doctor judges, each needing what the one
// before it needs and more: measure reads the server's counters around a
// command; run also creates the refresh-token workload's schema; check
// with its built-in workload also applies the migration as a login it
// creates for the run (confinement). check -- COMMAND needs only what
// measure does, and a copy of the database (or --in-place).
var Purposes = []string{"measure", "run", "check"}

func rank(purpose string) int {
	if i := slices.Index(Purposes, purpose); i >= 0 {
		return i
	}
	return len(Purposes)
}

// Verdict says whether one command can work on this server.
type Verdict struct {
	For   string `json:"for"`
	Works bool   `json:"works"`
	// Missing are the items the command cannot work without (check: with
	// its built-in workload).
	Missing []string `json:"missing,omitempty"`
	// Note says what doctor did not try, or how check -- COMMAND fares.
	Note string `json:"note,omitempty"`
}

// Works reports whether everything purpose needs is available.
func (r *Report) Works(purpose string) bool {
	return len(r.missingFor(purpose)) == 0
}

func (r *Report) missingFor(purpose string) []string {
	var out []string
	for _, it := range r.Items {
		if it.For != "" && rank(it.For) <= rank(purpose) && !it.Available {
			out = append(out, it.Name)
		}
	}
	return out
}

func (r *Report) has(purpose string) bool {
	return slices.ContainsFunc(r.Items, func(it Item) bool { return it.For == purpose })
}

// Verdicts says, per command, whether it can work here.
func (r *Report) Verdicts() []Verdict {
	var out []Verdict
	for _, p := range Purposes {
		v := Verdict{For: p, Missing: r.missingFor(p)}
		v.Works = len(v.Missing) == 0
		switch {
		case p == "run" && !r.has("run"):
			v.Note = "doctor does not try run's CREATE on " + vendor(r.Server) + ": see what each number needs"
		case p == "check" && !r.has("check"):
			v.Note = "doctor does not try check's confined login on " + vendor(r.Server)
		}
		if p == "check" && !v.Works && r.Works("measure") {
			v.Note = "check -- COMMAND works: it needs only what measure needs, and a copy of the database or --in-place"
		}
		out = append(out, v)
	}
	return out
}

// asked is the command the report is judged for: measure unless asked.
func (r *Report) asked() string {
	if r.For != "" {
		return r.For
	}
	return "measure"
}

// confineItem is whether check may create the login its built-in workload's
// migration runs as, confined to the workload's schema; the dialect says so
// with the statement that lets it.
func confineItem(ctx context.Context, db *sql.DB, s dialects.Server) (Item, bool) {
	c, err := dialects.ConfinerOf(s.Dialect)
	if err != nil {
		return Item{}, false
	}
	cc, ok := c.(interface {
		CanConfine(context.Context, dialects.Querier, dialects.Server) error
	})
	if !ok {
		return Item{}, false
	}
	it := Item{Name: "confined login", Kind: "privilege", For: "check", Needed: true, Available: true,
		Gives:   "check applies the built-in workload's migration as a login it creates for the run, owning the workload's schema and nothing else",
		Without: "check with the built-in workload refuses to start; check -- COMMAND still works"}
	if err := cc.CanConfine(ctx, db, s); err != nil {
		it.Available = false
		msg := strings.TrimPrefix(err.Error(), dialects.ErrCannotConfine.Error()+": ")
		it.Reason = msg
		if errors.Is(err, dialects.ErrCannotConfine) {
			// The dialect's words end with the statement that lets it.
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				it.Reason, it.Fix = msg[:i], msg[i+2:]
			}
			// What the login is for is Gives already.
			if i := strings.LastIndex(it.Reason, "; "); i >= 0 {
				it.Reason = it.Reason[i+2:]
			}
		}
	}
	return it, true
}

// copyItem is whether check -- COMMAND can copy the database on its own
// server (CREATE DATABASE ... TEMPLATE); without it check copies into a
// scratch server, so it is no requirement.
func copyItem(ctx context.Context, db *sql.DB, s dialects.Server) Item {
	it := Item{Name: "copy on the server", Kind: "privilege", Available: true,
		Gives:   "check -- COMMAND measures on copies made with CREATE DATABASE ... TEMPLATE on this server (also needs no other session on the database while it copies)",
		Without: "check -- COMMAND copies the database into a scratch server started from this machine's PostgreSQL binaries of the same major (or --pg-bin) with pg_dump, or --in-place measures on the database itself"}
	var super, createdb, template, owner bool
	if err := db.QueryRowContext(ctx, query("postgres", "copy_requirements", ""), s.Database).Scan(&super, &createdb, &template, &owner); err != nil {
		it.Available, it.Reason = false, "could not read whether "+s.User+" may copy "+s.Database+": "+err.Error()
		return it
	}
	user, dbname := pg.QuoteIdent(s.User), pg.QuoteIdent(s.Database)
	switch {
	case !super && !createdb:
		it.Available = false
		it.Reason = s.User + " may not create databases"
		it.Fix = fmt.Sprintf("as a superuser: ALTER ROLE %s CREATEDB", user)
	case !super && !owner && !template:
		it.Available = false
		it.Reason = fmt.Sprintf("only a superuser or the owner of %s may copy it (it is not a template)", s.Database)
		it.Fix = fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", dbname, user)
	}
	return it
}

// checkItems are what check needs beyond run, per dialect.
func checkItems(ctx context.Context, db *sql.DB, s dialects.Server) []Item {
	var items []Item
	if s.Dialect == my.Name && s.Has(my.CapReplica) {
		return nil // run and check write nothing on a replica
	}
	if it, ok := confineItem(ctx, db, s); ok {
		items = append(items, it)
	}
	if s.Dialect == pg.Name && !s.Has(pg.CapStandby) {
		items = append(items, copyItem(ctx, db, s))
	}
	return items
}

// Cautions say what a GRANT doctor recommends lets the role do beyond what
// writeamp uses it for, and the narrower way, when there is one.
func Cautions(fix string) []string {
	var out []string
	if strings.Contains(fix, "pg_read_binary_file") {
		out = append(out, "EXECUTE on pg_read_binary_file lets the role read every file under the data directory, not only pg_wal: "+
			"the data files of every table and index of every database (whatever their table privileges and row-level security say), postgresql.auto.conf and any configuration kept there, and the server's log directory. "+
			"writeamp reads only the window's WAL segments with it. "+
			"Narrower (15+): pg_walinspect with EXECUTE on its functions alone (GRANT EXECUTE ON FUNCTION pg_get_wal_records_info(pg_lsn, pg_lsn), and pg_get_wal_block_info(pg_lsn, pg_lsn, boolean) on 16+), "+
			"which gives the same figures from the WAL's records, more slowly, and reads no other file (the records still carry the changed rows of every database); "+
			"without either, leaf inserts are derived from the table counters and there are no per-object WAL bytes or pages touched")
	}
	if strings.Contains(fix, "GRANT pg_read_server_files") {
		out = append(out, "pg_read_server_files lets the role read any file the server's operating-system user may (COPY FROM a file, pg_read_file of any path); "+
			"EXECUTE on pg_walinspect's functions alone is enough for writeamp")
	}
	return out
}
