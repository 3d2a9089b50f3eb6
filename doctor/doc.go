// Package doctor says what a server lets writeamp measure: for every
// collector of the dialect, available or missing, why, and the statement that
// fixes it; and which commands (measure, run, check) can work there.
package doctor
