package ghaction

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Action's script masks, before it echoes the settings, every secret
// its inputs hold: GitHub then hides those values in the whole job's log.
func TestActionMasksTheInputsSecrets(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join(root, "scripts", "action-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?ms)^mask_secrets\(\) \{.*?^\}\n`).Find(script)
	if fn == nil {
		t.Fatal("scripts/action-check.sh has no mask_secrets")
	}
	if i, j := strings.Index(string(script), "mask_secrets \"$text\""), strings.Index(string(script), `check --print-config "${args[@]}"`); i < 0 || i > j {
		t.Fatal("the inputs must be masked before --print-config's settings are echoed")
	}
	in := `env PGPASSWORD=AccPwOne1 psql "postgres://u:AccPwTwo2@127.0.0.1:5432/app" -f w.sql "host=x password=AccPw3" API_TOKEN='AccTok4'`
	out, err := exec.Command("bash", "-c", string(fn)+`mask_secrets "$1"`, "bash", in).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, s := range []string{"AccPwOne1", "AccPwTwo2", "AccPw3", "AccTok4"} {
		if !strings.Contains(string(out), "::add-mask::"+s+"\n") {
			t.Errorf("%s not masked:\n%s", s, out)
		}
	}
	if strings.Contains(string(out), "w.sql") || strings.Contains(string(out), "127.0.0.1") {
		t.Errorf("masks more than the secrets:\n%s", out)
	}
}
