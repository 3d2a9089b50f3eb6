package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// claimsSection cuts a rendered report down to its claims, so the golden
// files show that section of each format (the rest has goldens of its own).
func claimsSection(t *testing.T, format string, out []byte) []byte {
	t.Helper()
	s := string(out)
	cut := func(from, to string) []byte {
		i := strings.Index(s, from)
		if i < 0 {
			t.Fatalf("%s: no %q in the report", format, from)
		}
		j := strings.Index(s[i+len(from):], to)
		if j < 0 {
			t.Fatalf("%s: the claims section does not end with %q", format, to)
		}
		return []byte(s[i : i+len(from)+j])
	}
	switch format {
	case "table":
		return cut("claims of ", "\n\n")
	case "markdown":
		return cut("**Claims of ", "\n\n- ")
	case "html":
		return cut(`<h2 id="claims">`, "<h2")
	case "csv":
		rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		for _, r := range rows {
			if r[3] == "claim" {
				w.Write(r)
			}
		}
		w.Flush()
		return b.Bytes()
	}
	var doc struct {
		Claims []result.Claim `json:"claims"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(doc.Claims, "", "  ")
	return append(b, '\n')
}

func TestClaimsGolden(t *testing.T) {
	t.Parallel()
	pg := pgSplits(t) // the c=1 runs with a per-operation section (claims_opcost_test.go)
	// what the wait sampler and --vacuum add to these runs (see sweep)
	for label, w := range map[string]map[string]float64{
		"baseline c=8": {"CPU.running": 0.55, "Client.ClientRead": 0.25, "IO.WALSync": 0.15, "LWLock.BufferContent": 0.05},
		"coarse c=8":   {"CPU.running": 0.6, "Client.ClientRead": 0.28, "IO.WALSync": 0.11, "LWLock.BufferContent": 0.01},
	} {
		shares(runOf(pg, label), 1000, w)
	}
	for label, v := range map[string]float64{"baseline c=1": 2700, "coarse c=1": 300} {
		run := runOf(pg, label)
		set(run.Database, "vacuum_log_bytes", 60*v, result.Exact)
		set(run.Table(userSessions).Metrics, "vacuum_pages_scanned", 25, result.Exact)
		set(run.Table(userSessions).Metrics, "vacuum_dead_items_removed", v, result.Exact)
		for i := range run.Indexes {
			if run.Indexes[i].Table == userSessions {
				set(run.Indexes[i].Metrics, "vacuum_index_entries_removed", v, result.Exact)
			}
		}
	}
	for name, r := range map[string]*result.Result{"claims_pg15_sweep": pg, "claims_mariadb_sweep": sweep(t, "claims_mariadb_sweep")} {
		for _, f := range Formats {
			if f == "openmetrics" {
				continue // numbers only: the claims are text
			}
			var buf bytes.Buffer
			if err := Render(&buf, f, r, Options{}); err != nil {
				t.Fatal(err)
			}
			golden(t, name+"."+f, claimsSection(t, f, buf.Bytes()))
		}
	}
}

// A claim names its metric as the catalogue does: a name the collectors do
// not write (vacuum_wal_bytes for vacuum_log_bytes) left a row "not
// measured" beside the very figures it asked for.
func TestClaimsNameCatalogueMetrics(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claims_pg15_sweep", "claims_mariadb_sweep"} {
		for _, cl := range FindingsOf(sweep(t, name)).Claims {
			switch {
			case cl.Metric == "", strings.ContainsAny(cl.Metric, "*+"), cl.Metric == "wait_share", cl.Metric == "session_waits", cl.Metric == "waits":
				continue // none (not measured on this dialect), a family or a sum, spelled out in the claim's text
			}
			if _, ok := result.Lookup(cl.Metric); !ok {
				t.Errorf("%s: claim %s reads %q, which is not in the catalogue", name, cl.ID, cl.Metric)
			}
		}
	}
}
