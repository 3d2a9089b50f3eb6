// Package layering holds the test that keeps writeamp's imports pointing
// down (cockroach's dep_test, over `go list -deps`): a package depends only
// on packages of lower layers, and the generic packages name no dialect and
// no workload; they reach those through the registries and the interfaces
// of dialects and workloads (redaction, quoting, check's hooks).
package layering
