// Package queries is the single source of every SQL text writeamp sends.
// Files hold named blocks in the sqlc style, each optionally gated on the
// server's version number:
//
//	-- name: pg_stat_user_tables
//	-- min_version: 160000      (inclusive; optional)
//	-- max_version: 170000      (exclusive; optional)
//	-- source: pg_stat_checkpointer.num_done   (optional, see Block.Meta)
//	SELECT ...
//
// A block may include another's text with {{block:NAME}} (expandIncludes).
// Several blocks may share a name with disjoint version ranges; Get picks the
// one for the server, so tests can assert the exact text each version gets.
// The headers are the only version gates: code that words a number by
// version asks Variant for the block it got and reads its Meta, instead of
// comparing version numbers again.
package queries
