//go:build !windows

package scratch

import (
	"os"
	"syscall"
)

// ownGroup puts the server in its own process group: a signal to
// writeamp's group (a CI runner cancelling the job) reaches writeamp,
// which drops the copies and then stops the server.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
func killGroup(p *os.Process)       { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
