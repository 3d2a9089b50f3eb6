// Package scratch starts a server of writeamp's own from the binaries on
// this machine, in a temporary directory on a free loopback port, loads it
// from a dump of the user's database, and removes it afterwards: check
// measures a wrapped command there when the database cannot be copied on
// its own server, so the user's database is never changed.
package scratch
