// Package safeio is how writeamp touches files the user names: reports and
// results are written without replacing what the path is (a symlink, a FIFO,
// a device), and inputs are read only from regular files of bounded size, so
// /dev/urandom or a FIFO nobody writes to cannot hang a command.
//
// Write is the one way anything writeamp was asked to write leaves it:
// --output, --junit, --result, snapshot files and $GITHUB_STEP_SUMMARY.
package safeio
