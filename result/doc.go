// Package result is the data every writeamp command produces and every
// report reads: the result JSON (schema_version 1, docs/result.schema.json). Other
// tools parse it, so fields are only ever added, never renamed or removed.
package result
