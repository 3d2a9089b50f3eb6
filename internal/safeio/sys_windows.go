//go:build windows

package safeio

import (
	"io/fs"
	"os"
)

// oNonblock: Windows has no FIFOs in the file system to wait on.
const oNonblock = 0

// keepOwner: a replacement file on Windows inherits the directory's ACL.
func keepOwner(*os.File, fs.FileInfo) {}
