package reports

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Push sends families to a Prometheus Pushgateway, replacing the group's
// metrics (PUT, as the Pushgateway's API says for a run that reports its
// whole state). rawURL is the gateway (http://host:9091: the group is then
// job "writeamp") or a group's full path (…/metrics/job/NAME[/LABEL/VALUE]…).
// The body is the Prometheus text format, which every Pushgateway reads.
func Push(ctx context.Context, rawURL string, fams []*dto.MetricFamily) error {
	u, err := PushURL(rawURL)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	enc := expfmt.NewEncoder(&body, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u.String(), &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("--push: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("--push: %s answered %s: %s", u.Redacted(), resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// PushURL is the group URL --push sends to, or an error naming the flag
// for a URL that is not a Pushgateway's.
func PushURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--push %q: give the Pushgateway's http(s) URL, e.g. http://pushgateway:9091", rawURL)
	}
	if !strings.Contains(u.Path, "/metrics/job/") {
		u = u.JoinPath("metrics", "job", "writeamp")
	}
	return u, nil
}
