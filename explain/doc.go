// Package explain predicts, without running anything, what a write
// statement costs the indexes of its table: which columns it sets, which
// indexes contain them (key, INCLUDE, expression, partial-index predicate),
// whether an UPDATE can be HOT (PostgreSQL) or rewrites secondary-index
// entries (InnoDB), and how many index entries each row adds. It reads the
// statement from PostgreSQL's parse tree (sqlparse) and the indexes from
// the catalog; tests hold the prediction to a measured run.
package explain
