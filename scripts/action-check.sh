#!/usr/bin/env bash
# The logic of the GitHub Action (action.yml): build writeamp from the
# action's own checkout, run `writeamp check` with the action's inputs
# (INPUT_* variables), leave the JUnit report, the Markdown report and the
# result JSON, append the report to the step summary, and exit with check's
# code: 0 within budget, 1 a budget exceeded, 2 could not measure. The job
# fails on anything but 0. It runs the same way outside Actions (the tests
# run it against a local PostgreSQL).
set -uo pipefail

root=${WRITEAMP_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
junit=${INPUT_JUNIT:-writeamp-check.xml}
report=${INPUT_REPORT:-writeamp-check.md}
result=${INPUT_RESULT:-writeamp-check.json}

out() { [ -z "${GITHUB_OUTPUT:-}" ] || echo "$1=$2" >>"$GITHUB_OUTPUT"; }
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; }
# could_not: a problem before check ran; told as an annotation, in the
# summary, and as exit 2 like check's own "could not measure".
could_not() {
  echo "::error title=writeamp check::$*"
  summary "### writeamp check: could not run" "" "$*"
  out exit-code 2
  out verdict error
  exit 2
}
# lines: the non-empty, non-comment lines of a multi-line input, trimmed.
lines() { printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v -e '^$' -e '^#' || true; }

[ -n "${INPUT_DSN:-}" ] || could_not "input dsn is required: the URL of a scratch database, e.g. postgres://postgres:ci@localhost:5432/scratch?sslmode=disable"
[ -n "$(lines "${INPUT_MIGRATION:-}")" ] || could_not "input migration is required: the migration's SQL files or directories, one per line"
[ -n "$(lines "${INPUT_BUDGETS:-}")" ] || could_not "input budgets is required: one per line, e.g. hot_ratio>=0.9"
command -v go >/dev/null || could_not "go is not installed: the action builds writeamp from its checkout (actions/setup-go runs first in action.yml)"

bindir=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/writeamp-action.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
version=${INPUT_VERSION:-${WRITEAMP_ACTION_REF:-}}
version=${version:-action}
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo "${WRITEAMP_ACTION_REF:-unknown}")
echo "::group::build writeamp $version from $root"
if ! (cd "$root" && go build -trimpath -ldflags "-X github.com/writeamp/writeamp/measure.Version=$version -X main.Commit=$commit" -o "$bindir/writeamp" ./cmd/writeamp); then
  echo "::endgroup::"
  could_not "go build ./cmd/writeamp failed in $root"
fi
"$bindir/writeamp" version
echo "::endgroup::"

args=(check --dsn "$INPUT_DSN" --junit "$junit" --format markdown --output "$report" --result "$result")
while IFS= read -r l; do args+=(--schema "$l"); done < <(lines "${INPUT_SCHEMA:-}")
while IFS= read -r l; do args+=(--migration "$l"); done < <(lines "${INPUT_MIGRATION:-}")
while IFS= read -r l; do args+=(--budget "$l"); done < <(lines "${INPUT_BUDGETS:-}")
read -r -a extra <<<"${INPUT_ARGS:-}"
args+=("${extra[@]}")
if [ -n "$(lines "${INPUT_WORKLOAD:-}")" ]; then
  args+=(-- bash -c "$INPUT_WORKLOAD")
fi

# The workload reaches the same database as check; check appends its
# report to GITHUB_STEP_SUMMARY itself.
export WRITEAMP_DSN="$INPUT_DSN"
rm -f "$report" "$junit" "$result" # a report left from an earlier run must not pass for this one's
"$bindir/writeamp" "${args[@]}"
code=$?
[ -f "$report" ] && cat "$report"
out exit-code "$code"
out junit "$junit"
out report "$report"
out result "$result"
case $code in
0) out verdict pass ;;
1) out verdict fail
   echo "::error title=writeamp check::a write budget was exceeded: see the job summary and $junit" ;;
*) out verdict error
   echo "::error title=writeamp check::could not measure (exit $code): see the log above" ;;
esac
exit "$code"
