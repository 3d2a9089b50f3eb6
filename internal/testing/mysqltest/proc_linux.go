package mysqltest

import "syscall"

// procAttr puts a private server in its own process group and kills it
// when the test binary dies without its cleanups (a timeout, a panic in
// another test, kill -9): it would hold its port and files for good.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
