package mysqltest

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// Bootstrapping a throwaway server leaves the shared server's temporary
// tables in /tmp alone: mariadb-install-db's server deletes every #sql*
// file of its tmpdir that it may, and a test beside it lost one mid-query.
func TestBootstrapLeavesTheSharedTmpdirAlone(t *testing.T) {
	testenv.Heavy(t, "bootstraps a MariaDB data directory")
	t.Parallel()
	probe := filepath.Join(os.TempDir(), fmt.Sprintf("#sql-writeamp-probe-%d.MAI", os.Getpid()))
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	if os.Geteuid() == 0 {
		// Owned as the shared server's files are, so the bootstrap server
		// (run as mysql) could delete it.
		if u, err := user.Lookup("mysql"); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			if err := os.Chown(probe, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	bootstrap(t)
	if _, err := os.Stat(probe); err != nil {
		t.Fatalf("bootstrapping a throwaway server removed %s from the shared tmpdir: %v", probe, err)
	}
}
