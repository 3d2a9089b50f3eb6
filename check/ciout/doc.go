// Package ciout writes what a finished check found, for people and for CI:
// the report (table, markdown, json, openmetrics), the JUnit XML, the SARIF
// log, the GitHub Actions annotations and step summary, the result file and
// the Pushgateway metrics, and turns the outcome into the process's exit
// error. It only renders: whether a check passed, and what its exit code
// is, are decided in package check (Outcome, Exit, ExitWith, Headline).
// Apart from check so that measuring, undoing and proving stay readable
// without the formats, and so that an output is added without touching
// what decides the verdict.
package ciout
