//go:build !linux

package measure

import "os/exec"

// ownGroup: only Linux has a parent-death signal; elsewhere the command is
// asked to stop by the cancel writeamp already sets.
func ownGroup(cmd *exec.Cmd) {}
