// Package postgres is the PostgreSQL dialect (13 through 18): connection,
// probe and capability flags, and the settle steps around a measured window.
package postgres
