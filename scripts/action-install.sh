#!/usr/bin/env bash
# How the GitHub Action (action.yml) gets its writeamp: a pinned release's
# archive for the runner's OS and architecture (the names scripts/dist.sh
# gives them), verified against that release's SHA256SUMS before anything in
# it runs, or, with version: source, a build of the action's own checkout.
#
#   action-install.sh plan     which: mode (release|source), version, the
#                              cache directory and key (step outputs)
#   action-install.sh install  the binary; its path as output bin
#
# Input version: a release tag (v1.4.0), "source", or empty: the action's own
# ref when it is a release tag (uses: writeamp/writeamp@v1.4.0), else source
# (a branch or a commit has no release archive). The archive is kept in the
# cache directory (action.yml persists it with actions/cache); SHA256SUMS is
# fetched again on every run and the kept archive checked against it, so a
# cache that was tampered with is never run. A mismatch on download refuses
# to run anything (exit 2). WRITEAMP_RELEASE_URL replaces the GitHub
# releases URL (a mirror; the tests' local server).
set -uo pipefail

root=${WRITEAMP_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
releases=${WRITEAMP_RELEASE_URL:-https://github.com/writeamp/writeamp/releases/download}

out() {
  echo "$1=$2"
  [ -z "${GITHUB_OUTPUT:-}" ] || echo "$1=$2" >>"$GITHUB_OUTPUT"
}
fail() {
  echo "::error title=writeamp install::$*"
  [ -z "${GITHUB_STEP_SUMMARY:-}" ] || printf '%s\n' "### writeamp check: could not install writeamp" "" "$*" >>"$GITHUB_STEP_SUMMARY"
  exit 2
}

# The platform as dist.sh names it, from the runner's RUNNER_OS/RUNNER_ARCH
# (Linux|macOS|Windows, X64|ARM64|X86|ARM), else uname; sets plat.
platform() {
  local os arch
  case ${RUNNER_OS:-$(uname -s)} in
  Linux | linux) os=linux ;;
  macOS | Darwin | darwin) os=darwin ;;
  Windows | windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) fail "no release archive for the OS ${RUNNER_OS:-$(uname -s)} (releases have linux, darwin and windows): use version: source" ;;
  esac
  case ${RUNNER_ARCH:-$(uname -m)} in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | aarch64 | arm64) arch=arm64 ;;
  *) fail "no release archive for the architecture ${RUNNER_ARCH:-$(uname -m)} (releases have amd64 and arm64): use version: source" ;;
  esac
  plat=${os}_$arch
}

resolve() {
  version=${INPUT_VERSION:-}
  version=${version#"${version%%[![:space:]]*}"}
  version=${version%"${version##*[![:space:]]}"}
  if [ -z "$version" ]; then
    # A release tag as dist.sh's VERSION has it (git describe --tags).
    if [[ ${WRITEAMP_ACTION_REF:-} =~ ^v[0-9]+(\.[0-9]+)*([-+][0-9A-Za-z.+-]+)?$ ]]; then
      version=$WRITEAMP_ACTION_REF
    else
      version=source
    fi
  fi
  if [ "$version" = source ]; then
    mode=source
    dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/writeamp-source
    key=""
    return
  fi
  # It becomes part of a URL and a path.
  [[ $version =~ ^[0-9A-Za-z][0-9A-Za-z._+-]*$ ]] ||
    fail "input version: a release tag such as v1.4.0, or source (got \"$version\")"
  mode=release
  platform
  dir=${RUNNER_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}}/writeamp/$version/$plat
  key=writeamp-$version-$plat
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  fi
}

# fetch URL FILE: the HTTP status on stdout ("000": no answer).
fetch() {
  curl -sSL --retry 3 --retry-connrefused -o "$2" -w '%{http_code}' "$1" 2>"$2.err" || true
}

# errtext FILE: curl's complaint, if any, as ": what".
errtext() { [ -s "$1" ] && printf ': %s' "$(head -c 200 "$1" | tr '\n' ' ')"; }

install_release() {
  local url=$releases/$version sums want name have status base
  mkdir -p "$dir" || fail "cannot create $dir"
  sums=$dir/SHA256SUMS
  status=$(fetch "$url/SHA256SUMS" "$sums.new")
  if [ "$status" != 200 ]; then
    local e
    e=$(errtext "$sums.new.err")
    rm -f "$sums.new"*
    fail "no release $version: $url/SHA256SUMS answered HTTP ${status:-000}$e (input version: a published release tag, or source)"
  fi
  mv "$sums.new" "$sums"
  rm -f "$sums.new.err"
  # sha256sum's lines: HASH, two spaces (or space and * for binary mode), NAME.
  base=writeamp_${version}_$plat
  read -r want name < <(awk -v b="$base" '{n=$2; sub(/^\*/, "", n)} n == b".tar.gz" || n == b".zip" {print $1, n; exit}' "$sums")
  if [ -z "${name:-}" ]; then
    have=$(awk '{n=$2; sub(/^\*/, "", n); sub(/^writeamp_[^_]*_/, "", n); sub(/\.(tar\.gz|zip)$/, "", n); sub(/_/, "/", n); print n}' "$sums" | sort | paste -sd, -)
    fail "release $version has no archive for ${plat/_//} (its SHA256SUMS lists: ${have:-nothing}): use version: source"
  fi
  local archive=$dir/$name
  if [ -f "$archive" ]; then
    have=$(sha256 "$archive")
    if [ "$have" = "$want" ]; then
      echo "writeamp $version: cached $name, SHA-256 $want as the release's SHA256SUMS says"
    else
      echo "::warning title=writeamp install::the cached $name does not match the release's SHA256SUMS (cached $have, SHA256SUMS $want): downloading it again"
      rm -f "$archive"
    fi
  fi
  if [ ! -f "$archive" ]; then
    status=$(fetch "$url/$name" "$archive.part")
    [ "$status" = 200 ] || { local e; e=$(errtext "$archive.part.err"); rm -f "$archive.part"*; fail "downloading $url/$name answered HTTP ${status:-000}$e"; }
    have=$(sha256 "$archive.part")
    if [ "$have" != "$want" ]; then
      rm -f "$archive.part"*
      fail "checksum mismatch: $url/$name has SHA-256 $have, the release's SHA256SUMS says $want; refusing to run it (a corrupted or altered download; try again, and report it if it persists)"
    fi
    rm -f "$archive.part.err"
    mv "$archive.part" "$archive"
    echo "writeamp $version: downloaded $name, SHA-256 $want as the release's SHA256SUMS says"
  fi
  # Always from the verified archive: a binary left in the cache is not trusted.
  local exe=writeamp
  [[ $plat == windows_* ]] && exe=writeamp.exe
  rm -rf "${dir:?}/$base"
  case $name in
  *.zip) (cd "$dir" && unzip -q "$name") || fail "cannot unpack $archive" ;;
  *) tar -C "$dir" -xzf "$archive" || fail "cannot unpack $archive" ;;
  esac
  bin=$dir/$base/$exe
  [ -x "$bin" ] || fail "$name holds no $base/$exe"
}

install_source() {
  command -v go >/dev/null || fail "version: source builds writeamp from the action's checkout and needs go (actions/setup-go runs first in action.yml)"
  local v=${WRITEAMP_ACTION_REF:-} commit
  [ -n "$v" ] || v=$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo source)
  commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo "${WRITEAMP_ACTION_REF:-unknown}")
  mkdir -p "$dir" || fail "cannot create $dir"
  bin=$dir/writeamp
  echo "::group::build writeamp $v from $root"
  # Static (CGO_ENABLED=0) and -trimpath, as make dist builds the release
  # archives: the same binary a release would give, from the same build cache.
  if ! (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-X main.Version=$v -X main.Commit=$commit" -o "$bin" ./cmd/writeamp); then
    echo "::endgroup::"
    fail "go build ./cmd/writeamp failed in $root"
  fi
  echo "::endgroup::"
}

resolve
case ${1:-install} in
plan)
  out mode "$mode"
  out version "$version"
  out dir "$dir"
  out key "$key"
  ;;
install)
  if [ "$mode" = source ]; then install_source; else install_release; fi
  "$bin" version || fail "$bin does not run on this runner"
  out bin "$bin"
  ;;
*) fail "usage: action-install.sh plan|install" ;;
esac
