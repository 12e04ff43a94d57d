#!/usr/bin/env bash
# Starts a private PostgreSQL 15 on 127.0.0.1:${PGPORT:-54329} for tests, installing Debian's
# package when it is missing. Prints the DATABASE_URL to use. Safe to run twice.
set -euo pipefail
PGPORT="${PGPORT:-54329}"
PGDATA_DIR="${PGDATA_DIR:-/tmp/waymark-pg-$PGPORT}"
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  echo "installing postgresql from Debian packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
RUNAS=(su postgres -s /bin/sh -c)
if [ "$(id -u)" != "0" ]; then RUNAS=(sh -c); fi
if ! "${RUNAS[@]}" "$PGBIN/pg_ctl -D $PGDATA_DIR status" >/dev/null 2>&1; then
  if [ ! -f "$PGDATA_DIR/PG_VERSION" ]; then
    mkdir -p "$PGDATA_DIR"
    [ "$(id -u)" = "0" ] && chown postgres:postgres "$PGDATA_DIR"
    "${RUNAS[@]}" "$PGBIN/initdb -D $PGDATA_DIR -U postgres --auth=trust -E UTF8 --no-locale" >&2
  fi
  "${RUNAS[@]}" "$PGBIN/pg_ctl -D $PGDATA_DIR -l $PGDATA_DIR/server.log -w -o '-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c jit=off' start" >&2
fi
for i in $(seq 1 30); do
  if "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT" >/dev/null 2>&1; then break; fi
  sleep 1
done
"$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -tc "select 1 from pg_database where datname='waymark_test'" | grep -q 1 \
  || "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -c "create database waymark_test" >&2
echo "postgres://postgres@127.0.0.1:$PGPORT/waymark_test"
