// Package measure is writeamp's library of a measurement, the commands being
// thin over it: a Window (window.go) is a measured database and the steps
// of a window; an Experiment runs a built-in workload's variants in one, a
// Wrapped an external command; snapshot files and their diff are the same
// steps split across processes. Cleanup and restore run on success, error
// and interrupt alike.
package measure
