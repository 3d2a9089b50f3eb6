package measure

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes the wrapped command die with writeamp: the kernel sends
// it SIGKILL when writeamp ends, even by kill -9 (Pdeathsig), so a check
// killed between apply and undo leaves no command writing to the database.
// When stdin is not a terminal it also gets its own process group, and a
// cancel (SIGTERM, SIGHUP …) reaches the whole group, its children too; on
// a terminal it stays in the foreground group, where a background group
// reading the terminal would be stopped (SIGTTIN).
// https://man7.org/linux/man-pages/man2/prctl.2.html (PR_SET_PDEATHSIG)
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
}
