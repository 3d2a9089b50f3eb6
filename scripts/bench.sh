#!/usr/bin/env bash
# make bench: ratios against peers measured in the same run (see cmd/writeamp-bench/main.go).
set -euo pipefail
cd "$(dirname "$0")/.."
# The diff rows' peer is jq; without it they are skipped (said in the output),
# so install it where this machine lets us rather than lose the rows.
if ! command -v jq >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	apt-get install -y -q jq >/dev/null || echo "bench: could not install jq; the diff rows will be skipped" >&2
fi
# Each group measured rewrites its block of docs/performance.md (a failed
# group keeps its last figures); `scripts/bench.sh -write ''` prints only.
exec go run ./cmd/writeamp-bench -dsn "${WRITEAMP_TEST_PG_DSN:?run through make bench}" -writeamp bin/writeamp -write docs/performance.md "$@"
