package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// TestGoInstallFromACleanGOPATH proves the README's install line,
// `go install github.com/writeamp/writeamp/cmd/writeamp@latest`, from an
// empty GOPATH: this checkout is served as version v0.0.1 by a module proxy
// on disk (the layout a Go module proxy serves), its dependencies come from
// the local module cache, and `go install …@latest` must build and stamp it.
// A replace directive, a missing go.sum line or a cgo-only dependency
// would fail here as it would for a user.
func TestGoInstallFromACleanGOPATH(t *testing.T) {
	testenv.Heavy(t, "builds writeamp in a GOPATH of its own")
	t.Parallel() // a build in its own GOPATH, nothing shared with the other tests
	if testing.Short() {
		t.Skip("builds writeamp from scratch")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	const mod, ver = "github.com/writeamp/writeamp", "v0.0.1"
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", mod, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("list", ver+"\n")
	write(ver+".info", `{"Version":"`+ver+`","Time":"2026-12-01T00:00:00Z"}`)
	write(ver+".mod", string(gomod))
	zf, err := os.Create(filepath.Join(at, ver+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for _, f := range strings.Fields(string(out)) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		w, err := zw.Create(mod + "@" + ver + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gopath := filepath.Join(tmp, "gopath")
	cmd := exec.Command("go", "install", mod+"/cmd/writeamp@latest")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN="+filepath.Join(tmp, "bin"),
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-trimpath", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/writeamp@latest: %v\n%s", mod, err, out)
	}
	v, err := exec.Command(filepath.Join(tmp, "bin", "writeamp"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(v), "writeamp "+ver) {
		t.Fatalf("the installed binary says %q (%v), want version %s", v, err, ver)
	}
	exec.Command("chmod", "-R", "u+w", gopath).Run() // the module cache is read-only; let TempDir remove it
}
