#!/usr/bin/env bash
# make test: the servers, every test against them, every fuzz target briefly,
# and one closing line counting tests (so a skip cannot hide in CI).
set -uo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/services.sh postgres mariadb)" || exit 1
# Every supported PostgreSQL major, live: throwaway servers from these binaries.
eval "$(scripts/pg-versions.sh --env)" || { echo "could not fetch the PostgreSQL 13-18 server binaries"; exit 1; }
echo "testing against $WRITEAMP_TEST_PG_DSN and $WRITEAMP_TEST_MYSQL_DSN, and PostgreSQL 13-18 from ${WRITEAMP_TEST_PG_BINS%%/native*}..."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -p 1: packages share the servers, and one package's WAL must not land in
# another's measured window.
go test -count=1 -p 1 -timeout 10m -v ./... >"$log" 2>&1
rc=$?
grep -E '^(ok|FAIL|\?) ' "$log"
if [ $rc -ne 0 ]; then
  echo; echo "failures:"
  grep -E -A25 '^\s*--- FAIL|^panic:|^FAIL\s|build failed|\[setup failed\]' "$log" | head -300
fi
FUZZTIME=${FUZZTIME:-20000x} scripts/fuzz.sh || rc=1
pass=$(grep -cE '^\s*--- PASS' "$log")
fail=$(grep -cE '^\s*--- FAIL' "$log")
skip=$(grep -cE '^\s*--- SKIP' "$log")
if [ "$skip" -gt 0 ]; then
  echo "skipped:"; grep -E -A1 '^\s*--- SKIP' "$log" | grep -vE '^\s*--- SKIP|^--$'
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
exit $rc
