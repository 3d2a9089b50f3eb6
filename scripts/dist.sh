#!/usr/bin/env bash
# make dist: release archives for linux, darwin and windows on amd64 and arm64,
# each a static binary (CGO_ENABLED=0: every dependency, the SQL drivers and the
# PostgreSQL parser included, is pure Go) with the README, man pages and shell
# completions, plus SHA256SUMS over the archives: what a release publishes and
# what the GitHub Action (scripts/action-install.sh) downloads and verifies.
# Output in dist/ (DIST=DIR elsewhere; PLATFORMS="linux/amd64" for fewer).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
LDFLAGS="-s -w -X main.Version=$VERSION -X main.Commit=$COMMIT"
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
DIST=${DIST:-dist}
host="$("$GO" env GOOS)/$("$GO" env GOARCH)"

rm -rf "$DIST"
mkdir -p "$DIST"
for p in $PLATFORMS; do
  os=${p%/*}; arch=${p#*/}
  name="writeamp_${VERSION}_${os}_${arch}"
  exe=writeamp; [ "$os" = windows ] && exe=writeamp.exe
  echo "dist: $name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$DIST/$name/$exe" ./cmd/writeamp
done

# The man pages and completions come from the command tree itself: from the
# host's own archive binary when there is one (a build less), else a host build.
mkdir -p "$DIST/.share"
gen="$DIST/writeamp_${VERSION}_${host/\//_}/writeamp"
if [[ " $PLATFORMS " != *" $host "* ]]; then
  gen="$DIST/.share/writeamp"
  "$GO" build -o "$gen" ./cmd/writeamp
fi
"$gen" gen --man "$DIST/.share/man/man1" --completions "$DIST/.share/completions"

for p in $PLATFORMS; do
  os=${p%/*}; arch=${p#*/}
  name="writeamp_${VERSION}_${os}_${arch}"
  cp README.md "$DIST/$name/"
  cp -r "$DIST/.share/man" "$DIST/.share/completions" "$DIST/$name/"
  if [ "$os" = windows ] && command -v zip >/dev/null; then
    (cd "$DIST" && zip -qr "$name.zip" "$name")
  else
    tar -C "$DIST" -czf "$DIST/$name.tar.gz" "$name"
  fi
  rm -rf "${DIST:?}/$name"
done
rm -rf "$DIST/.share"
(cd "$DIST" && sha256sum writeamp_* > SHA256SUMS)
echo "dist: $(ls "$DIST" | grep -vc SHA256SUMS) archives in $DIST, version $VERSION ($COMMIT)"
cat "$DIST/SHA256SUMS"
