package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.errs = append(r.errs, fmt.Sprint(a...)) }
func (r *recorder) failed(t *testing.T, want bool) {
	t.Helper()
	if (len(r.errs) > 0) != want {
		t.Fatalf("errors %q", r.errs)
	}
}

func table(changed string) string {
	var b strings.Builder
	for i := range 60 {
		if i == 30 {
			b.WriteString(changed + "\n")
			continue
		}
		fmt.Fprintf(&b, "│ row %02d │ 15,000 │\n", i)
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	r := &recorder{TB: t}
	Check(r, "missing.golden", []byte("x"))
	r.failed(t, true)
	if !strings.Contains(r.errs[0], "-update") {
		t.Errorf("a missing file does not say how to create it: %s", r.errs[0])
	}

	os.MkdirAll(Dir, 0o755)
	os.WriteFile(Path("t.golden"), []byte(table("│ row 30 │ 22.4 MiB │")), 0o644)
	r = &recorder{TB: t}
	Check(r, "t.golden", []byte(table("│ row 30 │ 22.4 MiB │")))
	r.failed(t, false)

	r = &recorder{TB: t}
	Check(r, "t.golden", []byte(table("│ row 30 │ 23 MiB │")))
	r.failed(t, true)
	msg := r.errs[0]
	for _, want := range []string{"testdata/t.golden", "-update", "-want +got", "22.4 MiB", "23 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "row 05") || strings.Count(msg, "\n") > 20 {
		t.Errorf("the diff shows more than the change and its context:\n%s", msg)
	}
}

func TestUpdateWrites(t *testing.T) {
	t.Chdir(t.TempDir())
	*Update = true
	defer func() { *Update = false }()
	r := &recorder{TB: t}
	Check(r, filepath.Join("sub", "new.golden"), []byte("fresh\n"))
	r.failed(t, false)
	if b, err := os.ReadFile(Path(filepath.Join("sub", "new.golden"))); err != nil || string(b) != "fresh\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
}
