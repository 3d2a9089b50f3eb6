//go:build !windows

package pgembed

import (
	"errors"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// owner is the unprivileged user the server runs as when writeamp runs as
// root (initdb and postgres refuse root); nil runs it as writeamp's user.
type owner struct{ cred *syscall.Credential }

// credential picks an unprivileged user when running as root.
func credential() (*owner, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &owner{&syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
	}
	return nil, errors.New("running as root, and neither a 'postgres' nor a 'nobody' user exists to run the throwaway PostgreSQL as (initdb refuses root)")
}

func (o *owner) chown(path string) error {
	if o == nil {
		return nil
	}
	return os.Chown(path, int(o.cred.Uid), int(o.cred.Gid))
}

// procAttr puts the server in its own process group: a Ctrl-C on the
// terminal reaches writeamp, which cleans up and then stops the server,
// instead of reaching the server first.
func (o *owner) procAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if o != nil {
		a.Credential = o.cred
	}
	return a
}

// interrupt asks the postmaster for a fast shutdown.
func interrupt(p *os.Process) error { return p.Signal(syscall.SIGINT) }

// killGroup kills the postmaster and its children.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
