#!/usr/bin/env bash
# Runs every Go fuzz target for a budget (FUZZTIME, default 20000x each).
# `go test` already runs their seed corpora; this explores beyond them.
# Budgets are execution counts, not durations: with a duration, Go 1.26's fuzz
# coordinator can report "context deadline exceeded" at the deadline with no
# failing input (golang/go#75804, fixed in 1.27).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-20000x}
# Workers per target (make test fuzzes beside the tests with one).
par=${FUZZPARALLEL:-$(nproc)}
# A cache directory of this run's own: Go keeps the corpus it found under
# GOCACHE by package path, so two checkouts fuzzing the same target at once
# read each other's half-written entries and a worker dies ("fuzzing process
# hung or terminated unexpectedly: exit status 2") with no failing input.
work=$(mktemp -d /tmp/writeamp-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg=./$(dirname "${f#./}")
  for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "fuzz $pkg $name ($t)"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" -parallel "$par" "$pkg" -test.fuzzcachedir "$work/cache" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  done
done
echo "fuzz: all targets held"
