#!/usr/bin/env bash
# The logic of the GitHub Action (action.yml): with the writeamp that
# scripts/action-install.sh installed (WRITEAMP_BIN; when unset, as in a
# local run, it installs it itself), run `writeamp check` with the action's inputs
# (INPUT_* variables), leave the JUnit report, the Markdown report and the
# result JSON, append the report to the step summary, comment on the pull
# request (input comment: always|on-failure|never; scripts/action-comment.sh),
# and exit as input fail-on says with check's code (0 within budget, 1 a
# budget exceeded, 2 bad input or could not measure, 3 the database is not
# as it was): budget fails the job on any of 1-3, restore only on 2 and 3,
# never on none (advisory: the failure is in the comment and the summary).
# It runs the same way outside Actions (the tests run it against a local
# PostgreSQL and a local server playing the GitHub API).
set -uo pipefail

root=${WRITEAMP_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
junit=${INPUT_JUNIT:-writeamp-check.xml}
report=${INPUT_REPORT:-writeamp-check.md}
result=${INPUT_RESULT:-writeamp-check.json}

out() { [ -z "${GITHUB_OUTPUT:-}" ] || echo "$1=$2" >>"$GITHUB_OUTPUT"; }
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; }
# finish CODE BODY: exit as fail-on says over check's CODE, after the
# pull-request comment (BODY, as the comment input says) and, when the code
# does not fail the job, the advisory note in the summary and the comment.
finish() {
  local code=$1 body=$2 fail=$1 advisory=""
  case ${INPUT_FAIL_ON:-budget} in
  restore) [ "$code" = 1 ] && fail=0 ;;
  never) fail=0 ;;
  esac
  if [ "$code" != 0 ] && [ "$fail" = 0 ]; then
    advisory="_Advisory (fail-on: ${INPUT_FAIL_ON}): writeamp check exited $code, which does not fail this job._"
    summary "" "$advisory"
    printf '\n%s\n' "$advisory" >>"$body"
  fi
  local mode=${INPUT_COMMENT:-always}
  if [ "$mode" = always ] || { [ "$mode" = on-failure ] && [ "$code" != 0 ]; }; then
    WRITEAMP_GITHUB_TOKEN="${INPUT_GITHUB_TOKEN:-}" bash "$root/scripts/action-comment.sh" "$body"
  fi
  exit "$fail"
}
# could_not: a problem before check ran; told as an annotation, in the
# summary and the comment, and as exit 2 like check's own "could not measure".
could_not() {
  echo "::error title=writeamp check::$*"
  summary "### writeamp check: could not run" "" "$*"
  out exit-code 2
  out verdict error
  printf '### writeamp check: could not run\n\n%s\n' "$*" >"$bindir/comment.md"
  finish 2 "$bindir/comment.md"
}
# lines: the non-empty, non-comment lines of a multi-line input, trimmed.
lines() { printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v -e '^$' -e '^#' || true; }

# Checked first and plainly: finish needs both.
bad() { echo "::error title=writeamp check::$*"; summary "### writeamp check: could not run" "" "$*"; out exit-code 2; out verdict error; exit 2; }
case ${INPUT_COMMENT:-always} in always | on-failure | never) ;; *) bad "input comment: always, on-failure or never (got ${INPUT_COMMENT})" ;; esac
case ${INPUT_FAIL_ON:-budget} in budget | restore | never) ;; *) bad "input fail-on: budget, restore or never (got ${INPUT_FAIL_ON})" ;; esac

bindir=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/writeamp-action.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
bin=${WRITEAMP_BIN:-}
if [ -z "$bin" ]; then
  bin=$(INPUT_VERSION="${INPUT_VERSION:-}" RUNNER_TEMP="$bindir" GITHUB_OUTPUT="$bindir/install.out" GITHUB_STEP_SUMMARY="" \
    bash "$root/scripts/action-install.sh" install >&2 && sed -n 's/^bin=//p' "$bindir/install.out")
  [ -n "$bin" ] || could_not "writeamp could not be installed (input version ${INPUT_VERSION:-empty}): see the log above"
fi

# What check will use: the config file (input config, else writeamp.yaml or
# .writeamp.yaml found from here up) merged with the inputs. A gate without
# budgets would pass every migration, so budgets come from the input or the
# file, and so do the migration and the DSN (dsn_env).
args=()
[ -z "${INPUT_DSN:-}" ] || args+=(--dsn "$INPUT_DSN")
while IFS= read -r l; do args+=(--schema "$l"); done < <(lines "${INPUT_SCHEMA:-}")
while IFS= read -r l; do args+=(--migration "$l"); done < <(lines "${INPUT_MIGRATION:-}")
while IFS= read -r l; do args+=(--budget "$l"); done < <(lines "${INPUT_BUDGETS:-}")
[ -z "${INPUT_CONFIG:-}" ] || args+=(--config "$INPUT_CONFIG")
read -r -a extra <<<"${INPUT_ARGS:-}"
args+=("${extra[@]}")
# The job's log never shows a secret the inputs hold: GitHub masks every
# value ::add-mask:: names from here on (check and --print-config mask them
# in what they print too): a URL's password, password=..., and NAME=value
# whose name says secret (PGPASSWORD=..., API_TOKEN=...).
mask_secrets() {
  local s
  while IFS= read -r s; do [ -z "$s" ] || echo "::add-mask::$s"; done < <(
    grep -oE '://[^/?#@[:space:]]*:[^@[:space:]]+@' <<<"$1" | sed -E 's|^://[^:]*:||; s|@$||'
    grep -oiE '(^|[?&[:space:]])(password|sslpassword|pwd)=[^&[:space:]]+' <<<"$1" | sed -E "s/^[^=]*=//; s/^[\"']//; s/[\"']\$//"
    grep -oiE '[a-z0-9_]*(pass|pwd|secret|token|api_?key)[a-z0-9_]*=[^[:space:]]+' <<<"$1" | sed -E "s/^[^=]*=//; s/^[\"']//; s/[\"']\$//"
  )
}
for text in "${INPUT_DSN:-}" "${INPUT_WORKLOAD:-}" "${INPUT_ARGS:-}"; do mask_secrets "$text"; done
if ! settings=$("$bin" check --print-config "${args[@]}" 2>&1); then
  could_not "the settings (input config, writeamp.yaml, the inputs) are not valid: $settings"
fi
echo "::group::settings (the config file merged with the inputs)"
printf '%s\n' "$settings"
echo "::endgroup::"
config=$(printf '%s\n' "$settings" | sed -n 's/^config: //p')
grep -q '^  - budget: ' <<<"$settings" ||
  could_not "no budgets: give input budgets (one per line, e.g. hot_ratio>=0.9) or budgets: in the config file (config: $config)"
grep -q '^migration: \[\]' <<<"$settings" &&
  could_not "no migration: give input migration (SQL files or directories, one per line) or migration: in the config file (config: $config)"
[ -n "${INPUT_DSN:-}" ] || grep -q '^dsn: \$' <<<"$settings" ||
  could_not "input dsn is required unless the config file names dsn_env: the URL of a scratch database, e.g. postgres://postgres:ci@localhost:5432/scratch?sslmode=disable (config: $config)"

args=(check --junit "$junit" --format markdown --output "$report" --result "$result" "${args[@]}")
if [ -n "$(lines "${INPUT_WORKLOAD:-}")" ]; then
  args+=(-- bash -c "$INPUT_WORKLOAD")
fi

# The workload reaches the same database as check; check appends its
# report to GITHUB_STEP_SUMMARY itself.
# With dsn_env, the variable the config names.
dsn_env=$(sed -n 's/^dsn: \$\([A-Za-z_][A-Za-z_0-9]*\) (dsn_env)$/\1/p' <<<"$settings")
if [ -n "${INPUT_DSN:-}" ]; then
  export WRITEAMP_DSN="$INPUT_DSN"
elif [ -n "$dsn_env" ]; then
  export WRITEAMP_DSN="${!dsn_env}"
fi
rm -f "$report" "$junit" "$result" # a report left from an earlier run must not pass for this one's
"$bin" "${args[@]}"
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
3) out verdict error
   echo "::error title=writeamp check::the database is not as it was after the check (exit 3): see the restore in the report" ;;
*) out verdict error
   echo "::error title=writeamp check::could not measure (exit $code): see the log above" ;;
esac

body="$bindir/comment.md"
{ [ -f "$report" ] && cat "$report" || echo "### writeamp check: could not measure (exit $code): see the job's log"; } >"$body"
finish "$code" "$body"
