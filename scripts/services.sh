#!/usr/bin/env bash
# Makes sure the databases the tests (or the demo) need are installed, running
# and accepting connections, then prints the DSNs to use as shell assignments:
#   eval "$(scripts/services.sh postgres mariadb)"
# Installs with apt-get (as root) what is missing. Never changes a server
# that already accepts our connections.
#   INSTALL_ONLY=1  install, start nothing (make demo): for postgres only the
#                   server binaries a throwaway server needs, apt's output kept
#                   unless it fails; never the test-only extensions.
#   DRY_RUN=1       print "install: PACKAGE..." for what would be installed,
#                   install and start nothing.
set -euo pipefail
# Debian's PostgreSQL root; a test points it at a directory of its own.
pglib=${SERVICES_PG_LIB:-/usr/lib/postgresql}

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(postgres mariadb)
log() { echo "services: $*" >&2; }
has() { for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

apt_install() {
  if [ "${DRY_RUN:-}" = 1 ]; then
    echo "install: $*"; return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    log "need root to install: apt-get install $*"; exit 1
  fi
  log "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  if [ "${INSTALL_ONLY:-}" = 1 ]; then
    # The demo's user asked for a demo, not apt's progress: shown only
    # when it fails.
    local out
    if ! out=$({ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } 2>&1); then
      echo "$out" >&2; log "apt-get install $* failed"; exit 1
    fi
    return 0
  fi
  apt-get update -qq >&2
  apt-get install -y -qq "$@" >&2
}

wait_for() { # wait_for NAME CMD...
  local name=$1; shift
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  log "$name did not accept connections within 60 s"; exit 1
}

# A DSN already set that answers is used as is (scripts/dev-servers.sh makes
# private servers, so parallel checkouts do not measure each other).
if has postgres && [ "${INSTALL_ONLY:-}" != 1 ] && [ -n "${WRITEAMP_TEST_PG_DSN:-}" ] && psql "$WRITEAMP_TEST_PG_DSN" -XAtqc 'select 1' >/dev/null 2>&1; then
  [ "${DRY_RUN:-}" = 1 ] || echo "export WRITEAMP_TEST_PG_DSN='$WRITEAMP_TEST_PG_DSN'"
  want=("${want[@]/postgres}")
fi
if has mariadb && [ -n "${WRITEAMP_TEST_MYSQL_DSN:-}" ]; then
  myu=${WRITEAMP_TEST_MYSQL_DSN#mysql://}; myhp=${myu#*@}; myhp=${myhp%%/*}
  if mariadb-admin -uroot -h"${myhp%:*}" -P"${myhp##*:}" ping >/dev/null 2>&1; then
    [ "${DRY_RUN:-}" = 1 ] || echo "export WRITEAMP_TEST_MYSQL_DSN='$WRITEAMP_TEST_MYSQL_DSN'"
    want=("${want[@]/mariadb}")
  fi
fi

if has postgres && [ "${INSTALL_ONLY:-}" = 1 ]; then
  # The demo starts its own server: initdb and postgres, found where
  # writeamp looks for them (pgembed), are all it needs.
  found=
  initdb=$(command -v initdb 2>/dev/null || true)
  for d in ${initdb:+"$(dirname "$(readlink -f "$initdb")")" "$(dirname "$initdb")"} "$pglib"/*/bin /usr/pgsql-*/bin /usr/local/pgsql/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && { found=$d; break; }
  done
  [ -n "$found" ] || apt_install postgresql
elif has postgres; then
  if ! ls "$pglib"/*/bin/initdb >/dev/null 2>&1 || ! ls "$pglib"/*/lib/pg_walinspect.so >/dev/null 2>&1 || ! command -v pgbench >/dev/null; then
    apt_install postgresql postgresql-contrib
  fi
  # pg_wait_sampling is the independent truth of the wait-share tests
  # (collectors/postgres/waitsampling_integration_test.go), preloaded on a throwaway 15.
  if [ -x "$pglib/15/bin/postgres" ] && [ ! -e "$pglib/15/lib/pg_wait_sampling.so" ]; then
    apt_install postgresql-15-pg-wait-sampling
  fi
fi
if has mariadb; then
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || apt_install mariadb-server
  # The Galera tests start a 3-node cluster of their own: the provider, and
  # rsync for the state transfer of the joining nodes.
  { [ -e /usr/lib/galera/libgalera_smm.so ] && command -v rsync >/dev/null; } || apt_install galera-4 rsync
fi
{ [ "${INSTALL_ONLY:-}" = 1 ] || [ "${DRY_RUN:-}" = 1 ]; } && exit 0

if has postgres; then
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
    if [ -z "$ver" ]; then
      ver=$(ls "$pglib" | sort -V | tail -1)
      log "creating cluster $ver/main"
      pg_createcluster "$ver" main >&2
    fi
    log "starting PostgreSQL $ver"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start >&2 || true
  fi
  wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432
  pgdsn="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
  if ! psql "$pgdsn" -XAtqc 'select 1' >/dev/null 2>&1; then
    # A fresh Debian cluster asks for a password over TCP. Give the bootstrap
    # superuser one, through the socket as the postgres OS user.
    log "PostgreSQL refuses passwordless TCP logins; setting a password for role postgres"
    runuser -u postgres -- psql -XAtqc "ALTER ROLE postgres PASSWORD 'writeamp'" >&2
    pgdsn="postgres://postgres:writeamp@127.0.0.1:5432/postgres?sslmode=disable"
    psql "$pgdsn" -XAtqc 'select 1' >/dev/null
  fi
  echo "export WRITEAMP_TEST_PG_DSN='$pgdsn'"
fi

if has mariadb; then
  if ! mariadb-admin -uroot -h127.0.0.1 ping >/dev/null 2>&1 && ! mariadb-admin ping >/dev/null 2>&1; then
    log "starting MariaDB"
    install -d -o mysql -g mysql /run/mysqld 2>/dev/null || true
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql >&2
  fi
  wait_for MariaDB mariadb-admin ping
  mydsn="mysql://root@127.0.0.1:3306/test"
  if ! mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1; then
    # A fresh install lets root in only through the socket: make a test user.
    log "MariaDB refuses root over TCP; creating user writeamp@127.0.0.1 for the tests"
    mariadb -e "CREATE USER IF NOT EXISTS 'writeamp'@'127.0.0.1' IDENTIFIED BY 'writeamp'; GRANT ALL ON *.* TO 'writeamp'@'127.0.0.1' WITH GRANT OPTION;" >&2
    mydsn="mysql://writeamp:writeamp@127.0.0.1:3306/test"
  fi
  mariadb -e "CREATE DATABASE IF NOT EXISTS test" >&2 2>/dev/null || mariadb -uroot -h127.0.0.1 -e "CREATE DATABASE IF NOT EXISTS test" >&2
  echo "export WRITEAMP_TEST_MYSQL_DSN='$mydsn'"
fi
