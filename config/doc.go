// Package config reads writeamp.yaml (or .writeamp.yaml), the check
// settings a repository keeps beside its migrations: which environment
// variable holds the DSN (never the DSN itself), the workload, the
// budgets per migration path, which of them only advise, and the
// suppressions with their reasons. Flags override what it says.
package config
