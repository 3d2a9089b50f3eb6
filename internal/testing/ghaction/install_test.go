package ghaction

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

const fakeTag = "v9.9.9-test"

// fakeReleases serves a dist/ that scripts/dist.sh built as GitHub serves a
// release's assets (/writeamp/writeamp/releases/download/TAG/NAME) and
// records each request; corrupt flips a byte of every archive it serves.
type fakeReleases struct {
	mu      sync.Mutex
	gets    []string
	corrupt bool
}

func newFakeReleases(t *testing.T, dist string) (*fakeReleases, string) {
	f := &fakeReleases{}
	prefix := "/writeamp/writeamp/releases/download/" + fakeTag + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.gets = append(f.gets, strings.TrimPrefix(r.URL.Path, "/writeamp/writeamp/releases/download/"))
		corrupt := f.corrupt
		f.mu.Unlock()
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if corrupt && name != "SHA256SUMS" {
			data = bytes.Clone(data)
			data[len(data)/2] ^= 0xff
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL + "/writeamp/writeamp/releases/download"
}

func (f *fakeReleases) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gets
	f.gets = nil
	return g
}

// runnerPlatform is RUNNER_OS/RUNNER_ARCH as GitHub sets them on this host.
func runnerPlatform(t *testing.T) (string, string) {
	os := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if os == "" || arch == "" {
		t.Skipf("no release archive for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return os, arch
}

// install runs scripts/action-install.sh as action.yml's steps do.
func install(t *testing.T, step string, env ...string) (int, string, map[string]string) {
	t.Helper()
	outputs := filepath.Join(t.TempDir(), "outputs")
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "action-install.sh"), step)
	cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY=", "WRITEAMP_ACTION_PATH="+root)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	data, _ := os.ReadFile(outputs)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	return code, string(out), got
}

// Which writeamp the Action takes: the input version, else its own ref when
// that is a release tag, else a build of its checkout.
func TestActionInstallPlan(t *testing.T) {
	t.Parallel()
	osName, arch := runnerPlatform(t)
	plat := runtime.GOOS + "_" + runtime.GOARCH
	cache := t.TempDir()
	for _, c := range []struct{ version, ref, mode, want string }{
		{"v1.4.0", "main", "release", "v1.4.0"},
		{"", "v1.4.0", "release", "v1.4.0"},
		{" v2.0.0-rc.1 ", "", "release", "v2.0.0-rc.1"},
		{"", "main", "source", "source"},
		{"", "0123456789abcdef0123456789abcdef01234567", "source", "source"},
		{"", "", "source", "source"},
		{"source", "v1.4.0", "source", "source"},
	} {
		code, out, o := install(t, "plan", "INPUT_VERSION="+c.version, "WRITEAMP_ACTION_REF="+c.ref,
			"RUNNER_OS="+osName, "RUNNER_ARCH="+arch, "RUNNER_TOOL_CACHE="+cache, "RUNNER_TEMP="+cache)
		if code != 0 || o["mode"] != c.mode || o["version"] != c.want {
			t.Errorf("version %q ref %q: exit %d, outputs %v, want mode %s version %s\n%s", c.version, c.ref, code, o, c.mode, c.want, out)
			continue
		}
		if c.mode == "release" && (o["dir"] != filepath.Join(cache, "writeamp", c.want, plat) || o["key"] != "writeamp-"+c.want+"-"+plat) {
			t.Errorf("version %q: cache dir %q key %q", c.version, o["dir"], o["key"])
		}
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"INPUT_VERSION=../../etc"}, "input version: a release tag such as v1.4.0, or source"},
		{[]string{"INPUT_VERSION=v1.4.0", "RUNNER_ARCH=X86"}, "no release archive for the architecture X86"},
		{[]string{"INPUT_VERSION=v1.4.0", "RUNNER_OS=FreeBSD"}, "no release archive for the OS FreeBSD"},
	} {
		env := append([]string{"RUNNER_OS=" + osName, "RUNNER_ARCH=" + arch, "RUNNER_TOOL_CACHE=" + cache}, c.env...)
		if code, out, _ := install(t, "plan", env...); code != 2 || !strings.Contains(out, "::error title=writeamp install::"+c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.env, code, c.want, out)
		}
	}
}

// The Action installs a release that scripts/dist.sh built, served by a
// local server as GitHub serves release assets: downloaded and verified
// against SHA256SUMS, then from the cache (SHA256SUMS fetched and the kept
// archive checked again); a cached archive that does not match is fetched
// again; a download that does not match is refused and nothing is run; a
// platform the release lacks and a tag that is not there are said plainly.
func TestActionInstallsAVerifiedRelease(t *testing.T) {
	t.Parallel()
	testenv.Heavy(t, "builds release archives")
	testenv.Tool(t, "curl")
	osName, arch := runnerPlatform(t)
	dist := filepath.Join(t.TempDir(), "dist")
	build := exec.Command("bash", filepath.Join(root, "scripts", "dist.sh"))
	build.Env = append(os.Environ(), "VERSION="+fakeTag, "DIST="+dist, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/dist.sh: %v\n%s", err, out)
	}
	name := "writeamp_" + fakeTag + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	rel, url := newFakeReleases(t, dist)
	cache := t.TempDir()
	env := []string{"INPUT_VERSION=" + fakeTag, "WRITEAMP_RELEASE_URL=" + url, "RUNNER_OS=" + osName, "RUNNER_ARCH=" + arch, "RUNNER_TOOL_CACHE=" + cache}
	dir := filepath.Join(cache, "writeamp", fakeTag, runtime.GOOS+"_"+runtime.GOARCH)
	wantBin := filepath.Join(dir, strings.TrimSuffix(name, ".tar.gz"), "writeamp")

	code, out, o := install(t, "install", env...)
	if code != 0 || o["bin"] != wantBin || !strings.Contains(out, "downloaded "+name+", SHA-256 ") || !strings.Contains(out, "writeamp "+fakeTag) {
		t.Fatalf("first install: exit %d, outputs %v\n%s", code, o, out)
	}
	if got := rel.take(); strings.Join(got, " ") != fakeTag+"/SHA256SUMS "+fakeTag+"/"+name {
		t.Errorf("first install fetched %v", got)
	}
	if v, err := exec.Command(o["bin"], "version").CombinedOutput(); err != nil || !strings.Contains(string(v), fakeTag) {
		t.Errorf("the installed binary: %v %s", err, v)
	}
	// version: source builds as the release archives are built (the docs
	// say so, and make test compiles that configuration once for both).
	code, out, src := install(t, "install", "INPUT_VERSION=source", "RUNNER_TEMP="+t.TempDir())
	if code != 0 {
		t.Fatalf("source install: exit %d, outputs %v\n%s", code, src, out)
	}
	if r, s := buildSettings(t, o["bin"]), buildSettings(t, src["bin"]); r["CGO_ENABLED"] != "0" || r["-trimpath"] != "true" || r["CGO_ENABLED"] != s["CGO_ENABLED"] || r["-trimpath"] != s["-trimpath"] {
		t.Errorf("the source build is not built as a release: release %v, source %v", r, s)
	}

	// The cache: only SHA256SUMS is fetched, the kept archive checked.
	code, out, o = install(t, "install", env...)
	if code != 0 || o["bin"] != wantBin || !strings.Contains(out, "cached "+name) {
		t.Fatalf("cached install: exit %d, outputs %v\n%s", code, o, out)
	}
	if got := rel.take(); strings.Join(got, " ") != fakeTag+"/SHA256SUMS" {
		t.Errorf("cached install fetched %v", got)
	}

	// A cached archive altered (and a binary beside it): fetched again.
	if err := os.WriteFile(filepath.Join(dir, name), []byte("not the release"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = install(t, "install", env...)
	if code != 0 || !strings.Contains(out, "::warning title=writeamp install::the cached "+name+" does not match") || len(rel.take()) != 2 {
		t.Errorf("altered cache: exit %d\n%s", code, out)
	}

	// A download that does not match SHA256SUMS: refused, nothing left to run.
	rel.corrupt = true
	fresh := t.TempDir()
	code, out, o = install(t, "install", append(env, "RUNNER_TOOL_CACHE="+fresh)...)
	if code != 2 || o["bin"] != "" || !strings.Contains(out, "::error title=writeamp install::checksum mismatch: "+url+"/"+fakeTag+"/"+name+" has SHA-256 ") ||
		!strings.Contains(out, "refusing to run it") {
		t.Errorf("corrupted download: exit %d, outputs %v\n%s", code, o, out)
	}
	left, _ := filepath.Glob(filepath.Join(fresh, "writeamp", fakeTag, "*", "*"))
	for _, f := range left {
		if filepath.Base(f) != "SHA256SUMS" {
			t.Errorf("a refused download left %s", f)
		}
	}
	rel.corrupt = false

	// A platform the release has no archive for, and a tag with no release.
	other := map[string]string{"X64": "ARM64", "ARM64": "X64"}[arch]
	code, out, _ = install(t, "install", append(env, "RUNNER_ARCH="+other)...)
	if code != 2 || !strings.Contains(out, "has no archive for "+runtime.GOOS+"/") || !strings.Contains(out, "its SHA256SUMS lists: "+runtime.GOOS+"/"+runtime.GOARCH+")") {
		t.Errorf("missing platform: exit %d\n%s", code, out)
	}
	code, out, _ = install(t, "install", append(env, "INPUT_VERSION=v0.0.0-none")...)
	if code != 2 || !strings.Contains(out, "no release v0.0.0-none: "+url+"/v0.0.0-none/SHA256SUMS answered HTTP 404") {
		t.Errorf("unknown tag: exit %d\n%s", code, out)
	}
}

// buildSettings are a binary's go build settings (CGO_ENABLED, -trimpath, …).
func buildSettings(t *testing.T, bin string) map[string]string {
	t.Helper()
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	m := map[string]string{}
	for _, s := range bi.Settings {
		m[s.Key] = s.Value
	}
	return m
}
