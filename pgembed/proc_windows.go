//go:build windows

package pgembed

import (
	"os"
	"syscall"
)

// owner: on Windows the server runs as writeamp's own user.
type owner struct{}

func credential() (*owner, error) { return nil, nil }
func (*owner) chown(string) error { return nil }
func (*owner) procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
func interrupt(p *os.Process) error { return p.Kill() }
func killGroup(p *os.Process)       { _ = p.Kill() }
