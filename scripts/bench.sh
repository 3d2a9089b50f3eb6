#!/usr/bin/env bash
# make bench: ratios against peers measured in the same run (see bench/main.go).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench -dsn "${WRITEAMP_TEST_PG_DSN:?run through make bench}" -writeamp bin/writeamp "$@"
