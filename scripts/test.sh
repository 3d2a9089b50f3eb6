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
# initdb once per PostgreSQL major for the whole run; every throwaway
# server of the suite starts from a copy (pgembed.TemplateEnv). 0755: the
# unprivileged user the servers run as must reach it.
WRITEAMP_PG_TEMPLATES=$(mktemp -d) && chmod 755 "$WRITEAMP_PG_TEMPLATES" && export WRITEAMP_PG_TEMPLATES
trap 'rm -f "$log"; rm -rf "$WRITEAMP_PG_TEMPLATES"' EXIT
# Two packages at a time, their tests in parallel: a test that uses the
# shared PostgreSQL or MariaDB holds that server until it ends (an flock,
# internal/testing/testenv), so no test's WAL lands in another's measured window;
# the tests with throwaway servers of their own run beside them.
# -parallel 4, not GOMAXPROCS (2): a test waiting for a shared server
# holds its slot, so at 2 cmd/writeamp often ran nothing but its queue
# (584 s of a 14 min run on 2026-12-05, the critical path); most tests wait
# on a server, not a core (-parallel 6 ran cmd/writeamp alone in 261 s).
# Every fuzz target briefly, beside the tests: one worker each, on the core
# the tests leave idle while they wait on the servers.
fuzzlog=$(mktemp)
FUZZTIME=${FUZZTIME:-20000x} FUZZPARALLEL=1 scripts/fuzz.sh >"$fuzzlog" 2>&1 &
fuzzpid=$!
# The release configuration (static, -trimpath) is what make dist, the
# Action's source build and the go-install test compile: three tests that
# start together and, on a cold build cache, each compiled every dependency
# again beside the others (a clean machine's run took 18 min 51 s, those
# three tests 96-392 s). One build of it first, beside the tests' own.
CGO_ENABLED=0 go build -trimpath -o /dev/null ./cmd/writeamp &
prewarm=$!
go test -count=1 -p 2 -parallel 4 -timeout 18m -v ./... >"$log" 2>&1
rc=$?
wait "$prewarm"
grep -E '^(ok|FAIL|\?) ' "$log"
if [ $rc -ne 0 ]; then
  echo; echo "failures:"
  # With -v a test's own messages come before its "--- FAIL" line (and
  # interleave under t.Parallel), so collect each test's lines by the
  # "=== RUN/CONT/NAME" markers and print the blocks of the failed ones.
  awk '
    /^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
    /^\s*--- (PASS|SKIP)/ { next }
    /^\s*--- FAIL: / { name = $3; failed[name] = 1; order[++n] = name; next }
    cur != "" { body[cur] = body[cur] $0 "\n" }
    /^panic:|build failed|\[setup failed\]/ { other = other $0 "\n" }
    END {
      for (i = 1; i <= n; i++) { t = order[i]; printf "--- FAIL: %s\n%s", t, substr(body[t], 1, 6000) }
      if (other != "") printf "%s", other
    }' "$log" | head -400
  grep -E '^(panic:|FAIL\s)' "$log" | head -20
fi
echo "slowest tests:"
grep -E '^--- (PASS|FAIL): ' "$log" | sed -E 's/^--- (PASS|FAIL): ([^ ]+) \(([0-9.]+)s\)/\3 \2/' | sort -rn | head -15
# The shared servers serve one test at a time: their summed holds are the
# suite's floor, and the longest holders are where it can shrink.
echo "shared servers' queue:"
grep -oE 'held the server of [A-Z_]+ for [0-9.]+s' "$log" | awk '{ s[$5] += $7; n[$5]++ } END { for (k in s) printf "  %s: %d tests, %.0f s held\n", k, n[k], s[k] }'
awk '/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next } /held the server of/ { match($0, /for [0-9.]+s/); print substr($0, RSTART+4, RLENGTH-5), cur }' "$log" | sort -rn | head -8 | sed 's/^/  /'
wait "$fuzzpid" || rc=1
cat "$fuzzlog"; rm -f "$fuzzlog"
pass=$(grep -cE '^\s*--- PASS' "$log")
fail=$(grep -cE '^\s*--- FAIL' "$log")
skip=$(grep -cE '^\s*--- SKIP' "$log")
if [ "$skip" -gt 0 ]; then
  echo "skipped:"; grep -E -A1 '^\s*--- SKIP' "$log" | grep -vE '^\s*--- SKIP|^--$'
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
exit $rc
