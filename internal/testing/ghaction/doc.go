// Package ghaction holds the tests of the GitHub Action (action.yml at the
// repository root and scripts/action-check.sh, which it calls): that every
// input reaches the script, and that the script, run as the action runs it,
// passes a budget that holds, fails one that breaks, and writes the step
// summary, the JUnit report and the step outputs.
package ghaction
