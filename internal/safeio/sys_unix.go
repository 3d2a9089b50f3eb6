//go:build !windows

package safeio

import (
	"io/fs"
	"os"
	"syscall"
)

// oNonblock opens a FIFO without waiting for its other end.
const oNonblock = syscall.O_NONBLOCK

// keepOwner gives a replacement file the owner of the file it replaces.
func keepOwner(f *os.File, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
