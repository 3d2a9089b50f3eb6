// Package oracle is the Oracle dialect (12.2 through 23ai, single instance;
// the workload needs 18c+): connection through the pure-Go go-ora driver,
// probe and capability flags, and privilege errors that name the grant.
package oracle
