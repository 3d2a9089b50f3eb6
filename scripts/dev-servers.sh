#!/usr/bin/env bash
# Private PostgreSQL and MariaDB servers for one working copy, so two people
# (or two checkouts) can run `make test` on one machine without measuring
# each other's WAL and redo:
#   eval "$(scripts/dev-servers.sh start NAME PGPORT MYPORT)"   # prints the two DSN exports
#   scripts/dev-servers.sh stop NAME
# make test uses WRITEAMP_TEST_PG_DSN / WRITEAMP_TEST_MYSQL_DSN when they are
# set and answer. Needs the Debian server packages (scripts/services.sh installs them).
set -euo pipefail
cmd=${1:-}; name=${2:-}
[ -n "$cmd" ] && [ -n "$name" ] || { echo "usage: $0 start NAME PGPORT MYPORT | stop NAME" >&2; exit 2; }
dir=/tmp/writeamp-dev-$name
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
runas() { if [ "$(id -u)" = 0 ]; then runuser -u "$1" -- "${@:2}"; else "${@:2}"; fi; }

case "$cmd" in
start)
  pgport=${3:?PGPORT}; myport=${4:?MYPORT}
  mkdir -p "$dir/pg" "$dir/my"
  [ "$(id -u)" = 0 ] && chown postgres "$dir/pg" && chown mysql "$dir/my"
  if [ ! -f "$dir/pg/data/PG_VERSION" ]; then
    runas postgres "$pgbin/initdb" -D "$dir/pg/data" -U postgres -A trust --no-sync >"$dir/pg/initdb.log" 2>&1
  fi
  if ! "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$pgport"; then
    runas postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w \
      -o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1" start >/dev/null
  fi
  if [ ! -d "$dir/my/data/mysql" ]; then
    mariadb-install-db --user=mysql --datadir="$dir/my/data" --auth-root-authentication-method=normal >"$dir/my/install.log" 2>&1
  fi
  if ! mariadb-admin -uroot -h127.0.0.1 -P"$myport" ping >/dev/null 2>&1; then
    start-stop-daemon --start --background --pidfile "$dir/my/pid" --exec /usr/sbin/mariadbd -- \
      --no-defaults --user=mysql --datadir="$dir/my/data" --port="$myport" --bind-address=127.0.0.1 \
      --socket="$dir/my/sock" --pid-file="$dir/my/pid" --log-error="$dir/my/err.log"
    for _ in $(seq 1 60); do mariadb-admin -uroot -h127.0.0.1 -P"$myport" ping >/dev/null 2>&1 && break; sleep 0.5; done
    # mariadb-install-db leaves anonymous users, which the shared server has not.
    mariadb -uroot -h127.0.0.1 -P"$myport" -e "CREATE DATABASE IF NOT EXISTS test; DROP USER IF EXISTS ''@'localhost', ''@'$(hostname)'" >/dev/null
  fi
  echo "export WRITEAMP_TEST_PG_DSN='postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable'"
  echo "export WRITEAMP_TEST_MYSQL_DSN='mysql://root@127.0.0.1:$myport/test'"
  ;;
stop)
  [ -d "$dir/pg/data" ] && runas postgres "$pgbin/pg_ctl" -D "$dir/pg/data" -m fast stop >/dev/null 2>&1 || true
  [ -f "$dir/my/pid" ] && kill "$(cat "$dir/my/pid")" 2>/dev/null || true
  sleep 2; rm -rf "$dir"
  ;;
*) echo "usage: $0 start NAME PGPORT MYPORT | stop NAME" >&2; exit 2 ;;
esac
