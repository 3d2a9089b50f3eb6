//go:build !linux

package mysqltest

import "syscall"

// procAttr: without Pdeathsig a private server outlives a test binary that
// dies without its cleanups.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
