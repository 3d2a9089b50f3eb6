// Package dialects holds what every database dialect provides: how to open a
// connection, how to probe the server, and the registry that maps a DSN to a
// dialect. Version differences are named capabilities on Server, never
// scattered version literals.
package dialects
