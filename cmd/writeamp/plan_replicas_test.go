package main

import (
	"strings"
	"testing"
)

// plan --replicas: the whole-cluster WAL of the fixture (23,484,848 bytes
// per 15,000 refreshes) to each of 2 replicas at 500/s is 0.78 MB/s each,
// and the link share of a 1 Gbit/s link (125 MB/s) is 0.6%.
func TestPlanReplicas(t *testing.T) {
	t.Parallel()
	out, _, err := run(t, "plan", fixture, "--rate", "500/s", "--replicas", "2", "--network-ceiling", "1Gbit/s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"log shipped to 2 replicas (--replicas)", "each replica receives 1.53 KiB per refresh", "0.6% of the link", "full at 79,839 refreshes/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --replicas lacks %q:\n%s", want, out)
		}
	}
	// A result without standbys and no --replicas: no section, as before.
	out, _, err = run(t, "plan", fixture, "--rate", "500/s")
	if err != nil || strings.Contains(out, "log shipped") {
		t.Errorf("a shipping section without --replicas: %v\n%s", err, out)
	}
}

func TestPlanReplicasRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", fixture, "--rate", "5/s", "--replicas", "-1"}, "--replicas"},
		{[]string{"plan", fixture, "--rate", "5/s", "--network-ceiling", "fast"}, "--network-ceiling"},
		{[]string{"plan", fixture, "--rate", "5/s", "--network-ceiling", "1Gbit/s"}, "--replicas"},
	} {
		_, _, err := run(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, %v; want a usage error naming %q", c.args, exitCode(err), err, c.want)
		}
	}
}

func TestMeasureNodeRefusesAnEmptyDSN(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, "measure", "--dsn", "postgres://nobody@127.0.0.1:1/x?sslmode=disable", "--node", "", "--", "true")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--node") {
		t.Fatalf("exit %d, %v; want a usage error naming --node", exitCode(err), err)
	}
}
