package reports

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// A local server plays the Pushgateway: the result arrives as one PUT to
// the job's group, in a body its text parser reads, with every family.
func TestPushPutsTheFamiliesToTheGroup(t *testing.T) {
	t.Parallel()
	type call struct{ method, path, ctype string }
	var calls []call
	var body []byte
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls = append(calls, call{r.Method, r.URL.Path, r.Header.Get("Content-Type")})
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(status)
		io.WriteString(w, "pushgateway says no")
	}))
	defer srv.Close()
	fams := Families(fixture(t))
	if err := Push(context.Background(), srv.URL, fams); err != nil {
		t.Fatal(err)
	}
	if err := Push(context.Background(), srv.URL+"/metrics/job/ci/branch/main", fams); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0] != (call{"PUT", "/metrics/job/writeamp", "text/plain; version=0.0.4; charset=utf-8"}) || calls[1].path != "/metrics/job/ci/branch/main" {
		t.Fatalf("calls %+v", calls)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	got, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(fams) || got["writeamp_leaf_inserts"] == nil {
		t.Errorf("pushed %d families, want %d", len(got), len(fams))
	}
	status = http.StatusBadRequest
	if err := Push(context.Background(), srv.URL, fams); err == nil || !strings.Contains(err.Error(), "400 Bad Request: pushgateway says no") {
		t.Errorf("a refused push: %v", err)
	}
	if err := Push(context.Background(), "pushgateway:9091", fams); err == nil || !strings.Contains(err.Error(), "http(s) URL") {
		t.Errorf("a URL without a scheme: %v", err)
	}
}
