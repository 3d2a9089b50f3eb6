#!/usr/bin/env bash
# make dist: release archives for linux, darwin and windows on amd64 and arm64,
# each a static binary (CGO_ENABLED=0: every dependency, the SQL drivers and the
# PostgreSQL parser included, is pure Go) with the README, man pages and shell
# completions, plus SHA256SUMS over the archives. Output in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
LDFLAGS="-s -w -X github.com/writeamp/writeamp/measure.Version=$VERSION -X main.Commit=$COMMIT"
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

rm -rf dist
mkdir -p dist/.share
# The man pages and completions come from the command tree itself.
"$GO" build -o dist/.host-writeamp ./cmd/writeamp
dist/.host-writeamp gen --man dist/.share/man/man1 --completions dist/.share/completions
rm dist/.host-writeamp

for p in $PLATFORMS; do
  os=${p%/*}; arch=${p#*/}
  name="writeamp_${VERSION}_${os}_${arch}"
  exe=writeamp; [ "$os" = windows ] && exe=writeamp.exe
  echo "dist: $name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "dist/$name/$exe" ./cmd/writeamp
  cp README.md "dist/$name/"
  cp -r dist/.share/man dist/.share/completions "dist/$name/"
  if [ "$os" = windows ] && command -v zip >/dev/null; then
    (cd dist && zip -qr "$name.zip" "$name")
  else
    tar -C dist -czf "dist/$name.tar.gz" "$name"
  fi
  rm -rf "dist/$name"
done
rm -rf dist/.share
(cd dist && sha256sum writeamp_* > SHA256SUMS)
echo "dist: $(ls dist | grep -vc SHA256SUMS) archives, version $VERSION ($COMMIT)"
cat dist/SHA256SUMS
