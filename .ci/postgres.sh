#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server for the tests, from Debian's `postgresql` package,
# and prints the URL to reach it: `.ci/postgres.sh > url-file` (a file rather than `$(...)`, so that
# no inherited descriptor of the background server can keep a pipe open).
#
# Idempotent and quick: installs the package only when no initdb is found, creates the cluster
# only when its data directory is empty, starts it only when it does not answer, and creates the
# role and database only when missing. Runs as root (CI) or as any user who can write the data
# directory (the server itself runs as `postgres` when we are root).
#
# Tuned for tests, not for data you keep: fsync and synchronous_commit are off, and a
# transaction left idle for 90 s is ended (idle_in_transaction_session_timeout): a test process
# stuck while it holds a lock then fails instead of holding up every other user of the cluster.
# Environment: GEOFENCE_PG_DIR (data directory, default /tmp/geofence-ci-pg),
#              GEOFENCE_PG_PORT (default 54329), all output but the URL goes to stderr.
set -euo pipefail
exec 3>&1 1>&2

dir=${GEOFENCE_PG_DIR:-/tmp/geofence-ci-pg}
port=${GEOFENCE_PG_PORT:-54329}
role=geofence
password=geofence-ci
database=geofence

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
fi
bin=$(bindir)

as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir" && chmod 700 "$dir"
if [ ! -f "$dir/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$dir" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! as_pg "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
    # The server outlives this script: start it with no descriptor of ours beyond 0-2, which go
    # to /dev/null and the log, so no caller's pipe (a `$(...)`, a CI runner's output) is held
    # open by it.
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] && eval "exec $fd>&-"
        done
        as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start -o \
            "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c idle_in_transaction_session_timeout=90s" \
            </dev/null >/dev/null 2>/dev/null
    ) || { cat "$dir/server.log" >&2; exit 1; }
fi
psql_admin() { as_pg "$bin/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
if [ "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" != 1 ]; then
    # The role owns the database, so it can create the schema each test case uses.
    psql_admin -c "CREATE ROLE $role LOGIN PASSWORD '$password'"
fi
if [ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
    psql_admin -c "CREATE DATABASE $database OWNER $role"
fi
echo "postgres://$role:$password@127.0.0.1:$port/$database" >&3
