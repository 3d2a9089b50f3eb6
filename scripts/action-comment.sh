#!/usr/bin/env bash
# The Action's pull-request comment: one comment per pull request, found
# again by a hidden marker and updated in place on every push, through the
# GitHub REST API with the job's token. When the token cannot write (a
# fork's pull request gets a read-only one) the report stays in the step
# summary, which says why there is no comment.
# Usage: action-comment.sh BODY_FILE. Reads GITHUB_API_URL, GITHUB_REPOSITORY,
# GITHUB_EVENT_PATH, WRITEAMP_GITHUB_TOKEN and GITHUB_STEP_SUMMARY.
set -uo pipefail

body_file=$1
marker='<!-- writeamp-check -->'
api=${GITHUB_API_URL:-https://api.github.com}
repo=${GITHUB_REPOSITORY:-}
token=${WRITEAMP_GITHUB_TOKEN:-}
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; }
no_comment() {
  echo "::warning title=writeamp check::no pull-request comment: $*"
  summary "" "_writeamp check could not comment on the pull request: $*. The report is above._"
  exit 0
}

pr=""
[ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] &&
  pr=$(jq -r '.pull_request.number // .issue.number // empty' "$GITHUB_EVENT_PATH" 2>/dev/null)
[ -n "$pr" ] || { echo "not a pull request: no comment"; exit 0; }
[ -n "$repo" ] || no_comment "GITHUB_REPOSITORY is not set"
[ -n "$token" ] || no_comment "no token (input github-token)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# call METHOD URL [JSON_FILE]: the response body in $tmp/resp, the HTTP status on stdout.
call() {
  local data=()
  [ $# -ge 3 ] && data=(--data-binary "@$3")
  curl -sS -o "$tmp/resp" -w '%{http_code}' -X "$1" \
    -H "Authorization: Bearer $token" -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" "${data[@]}" "$2" 2>"$tmp/err" || echo 000
}
denied() { case $1 in 401 | 403 | 404) return 0 ;; esac; return 1; }

{ printf '%s\n' "$marker"; cat "$body_file"; } >"$tmp/body.md"
jq -Rs '{body: .}' <"$tmp/body.md" >"$tmp/body.json"

# The marker's comment, if an earlier run left one: the newest page first
# is not what the API offers, so read up to 10 pages of 100.
id=""
for page in 1 2 3 4 5 6 7 8 9 10; do
  status=$(call GET "$api/repos/$repo/issues/$pr/comments?per_page=100&page=$page")
  denied "$status" && no_comment "listing comments answered HTTP $status"
  [ "$status" = 200 ] || no_comment "listing comments answered HTTP $status: $(head -c 300 "$tmp/resp" "$tmp/err")"
  id=$(jq -r --arg m "$marker" '[.[] | select((.body // "") | contains($m))][0].id // empty' "$tmp/resp")
  [ -n "$id" ] && break
  [ "$(jq 'length' "$tmp/resp")" -lt 100 ] && break
done

if [ -n "$id" ]; then
  status=$(call PATCH "$api/repos/$repo/issues/comments/$id" "$tmp/body.json")
  what="updated comment $id"
else
  status=$(call POST "$api/repos/$repo/issues/$pr/comments" "$tmp/body.json")
  what="created a comment"
fi
case $status in
200 | 201) echo "writeamp check: $what on pull request #$pr" ;;
401 | 403 | 404) no_comment "the token cannot write to the pull request (HTTP $status; a fork's pull request gets a read-only token)" ;;
*) no_comment "HTTP $status: $(head -c 300 "$tmp/resp" "$tmp/err")" ;;
esac
