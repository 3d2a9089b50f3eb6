// Package workloadtest checks a dialect's refresh-token SQL without a
// server: golden files of every block per version and variant, placeholder
// counts against the arguments the workload passes, and a sqlmock run of
// Prepare, one login, refresh and logout, and Cleanup. The dialects that
// cannot run here (SQL Server, Oracle) share it.
package workloadtest
