package dialects

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestReasonRendersItsFixAtTheEdge(t *testing.T) {
	r := Reason{Kind: Privilege, Text: "CHECKPOINT is not permitted for app", Fix: "GRANT pg_checkpoint TO app"}
	if got := r.String(); got != "CHECKPOINT is not permitted for app (fix: GRANT pg_checkpoint TO app)" {
		t.Errorf("String: %q", got)
	}
	su := Reason{Text: "x", Fix: "CREATE EXTENSION y", AsSuperuser: true}
	if su.String() != "x (fix, as a superuser: CREATE EXTENSION y)" || su.FixLine() != "as a superuser: CREATE EXTENSION y" {
		t.Errorf("superuser: %q / %q", su.String(), su.FixLine())
	}
	var s Server
	s.Deny("checkpoint", r)
	if s.Why("checkpoint") != r.String() || s.Reason("checkpoint") != r || s.Has("checkpoint") {
		t.Errorf("Deny: why %q reason %+v", s.Why("checkpoint"), s.Reason("checkpoint"))
	}
	s.Set("checkpoint", true, "")
	if _, ok := s.Details["checkpoint"]; ok || !s.Has("checkpoint") {
		t.Error("a capability set to available keeps a reason")
	}
}

// A snapshot file keeps the typed reasons next to the rendered ones; a file
// from before has only the text, which Reason still returns.
func TestReasonSurvivesTheSnapshotFile(t *testing.T) {
	var s Server
	s.Deny("pg_stat_io", Reason{Kind: Version, Text: "pg_stat_io needs PostgreSQL 16 or later"})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Server
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Reason("pg_stat_io").Kind != Version {
		t.Errorf("round trip lost the kind: %s", b)
	}
	var old Server
	if err := json.Unmarshal([]byte(`{"capabilities":{"pg_stat_io":false},"missing_reasons":{"pg_stat_io":"needs 16 (fix: upgrade)"}}`), &old); err != nil {
		t.Fatal(err)
	}
	if r := old.Reason("pg_stat_io"); r.Text != "needs 16 (fix: upgrade)" || r.Kind != "" {
		t.Errorf("an older file: %+v", r)
	}
}

func TestReasonOf(t *testing.T) {
	un := &Unavailable{Reason: Reason{Kind: Setting, Text: "the monitors are off", Fix: "SET GLOBAL m = 1"}, Lacks: []string{"page_splits"}}
	if !errors.Is(un, ErrUnsupported) || un.Error() != "unsupported: the monitors are off (fix: SET GLOBAL m = 1)" {
		t.Errorf("Unavailable: is %v, %q", errors.Is(un, ErrUnsupported), un.Error())
	}
	cases := []struct {
		err  error
		want Reason
	}{
		{un, un.Reason},
		{fmt.Errorf("collect: %w", un), un.Reason},
		{&PrivilegeError{Privilege: "SUPER", Grant: "GRANT SUPER ON *.* TO app", Err: un},
			Reason{Kind: Privilege, Text: "missing privilege SUPER: the monitors are off", Fix: "GRANT SUPER ON *.* TO app"}},
		{&PrivilegeError{Privilege: "PROCESS", Grant: "GRANT PROCESS ON *.* TO app", Err: errors.New("denied")},
			Reason{Kind: Privilege, Text: "missing privilege PROCESS: denied", Fix: "GRANT PROCESS ON *.* TO app"}},
		{fmt.Errorf("%w: pg_stat_replication_slots needs PostgreSQL 14 or later", ErrUnsupported), Reason{Text: "pg_stat_replication_slots needs PostgreSQL 14 or later"}},
	}
	for _, c := range cases {
		if got := ReasonOf(c.err); got != c.want {
			t.Errorf("ReasonOf(%v) = %+v, want %+v", c.err, got, c.want)
		}
	}
	if l := Lacking(fmt.Errorf("x: %w", un)); len(l) != 1 || l[0] != "page_splits" {
		t.Errorf("Lacking: %v", l)
	}
}

func TestBothReasons(t *testing.T) {
	a := Reason{Kind: Privilege, Text: "may not read pg_wal", Fix: "GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO app"}
	b := Reason{Kind: Setting, Text: "pg_walinspect is not installed", Fix: "CREATE EXTENSION pg_walinspect", AsSuperuser: true}
	got := Both(a, b)
	want := Reason{Text: "may not read pg_wal; pg_walinspect is not installed", Fix: a.Fix + "; or, as a superuser: " + b.Fix}
	if got != want {
		t.Errorf("Both = %+v, want %+v", got, want)
	}
	if Both(Reason{Kind: Version, Text: "a"}, Reason{Kind: Version, Text: "b"}).Kind != Version {
		t.Error("two version gates are a version gate")
	}
}
