package reports_test

// The refresh-token workload registers its claims (Keycloak PR #51904) with
// the reports, as the binary links it; the golden files of its results show
// them. An external test package may import a package that imports reports.
import _ "github.com/writeamp/writeamp/workloads/refreshtoken"
