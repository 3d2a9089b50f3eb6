package scratch

import (
	"os"
	"syscall"
)

func ownGroup() *syscall.SysProcAttr { return nil }
func terminate(p *os.Process) error  { return p.Kill() }
func killGroup(p *os.Process)        { _ = p.Kill() }
