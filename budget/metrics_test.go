package budget

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestCheckMetricsRefusesUnknownNames(t *testing.T) {
	bs, err := ParseAll([]string{"log_bytes/op<=+5%", "leaf_insert/op<=+0%"})
	if err != nil {
		t.Fatal(err)
	}
	err = CheckMetrics(bs)
	if err == nil || !strings.Contains(err.Error(), "leaf_insert") || !strings.Contains(err.Error(), "leaf_inserts") {
		t.Errorf("want an error naming the typo and suggesting leaf_inserts, got %v", err)
	}
	ok, _ := ParseAll(Examples)
	if err := CheckMetrics(ok); err != nil {
		t.Errorf("the examples are valid: %v", err)
	}
}

// Budgets know exactly the catalogue's metrics: every name in it, the wait
// events, and nothing else (enq_tx_index_contention was once listed here,
// but Oracle's event is waits.enq_tx_index_contention: a budget on it could
// never be evaluated).
func TestCheckMetricsIsTheCatalogue(t *testing.T) {
	for _, i := range result.Catalogue() {
		b, err := Parse(i.Name + "<=+5%")
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMetrics([]Budget{b}); err != nil {
			t.Errorf("%s: %v", i.Name, err)
		}
	}
	for _, s := range []string{"waits.writelog/op<=+10%", "waits.enq_tx_index_contention<=0", "waits.pagelatch_ex_ms<=+0%"} {
		b, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := CheckMetrics([]Budget{b}); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"enq_tx_index_contention<=0", "waits_writelog<=0", "log_byte<=0", "log.bytes<=0"} {
		b, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := CheckMetrics([]Budget{b}); err == nil || !strings.Contains(err.Error(), "unknown metric") {
			t.Errorf("%s: %v", s, err)
		}
	}
}
