#!/usr/bin/env bash
# Load figures for docs/server.md: a release `geofence serve` on a fresh SQLite file (or a fresh
# schema of a PostgreSQL database), 100,000 regions, then batched ingestion and paced single-fix
# requests, then a restart to time the start-up. Bounded: every run has a fixed duration.
#   swift build -c release --product geofence && scripts/server-load.sh
#   DATABASE=postgres://USER:PASSWORD@HOST:PORT/DB scripts/server-load.sh   # same runs on PostgreSQL
#     (a schema load_<time>_<pid> is created with psql for the run and dropped afterwards;
#      `bash .ci/postgres.sh` starts a local server and prints its URL)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GEOFENCE:-.build/release/geofence}
# The load generator (default: the same executable). Set it to compare two servers with one
# client: GEOFENCE=old/geofence LOADGEN=.build/release/geofence scripts/server-load.sh
LOADGEN=${LOADGEN:-$BIN}
DIR=$(mktemp -d)
DATABASE=${DATABASE:-}
SCHEMA=""
if [[ "$DATABASE" == postgres://* || "$DATABASE" == postgresql://* ]]; then
  SCHEMA="load_$(date +%s)_$$"
  psql -X -q -v ON_ERROR_STOP=1 "$DATABASE" -c "CREATE SCHEMA $SCHEMA"
  if [[ "$DATABASE" == *\?* ]]; then DB="$DATABASE&search_path=$SCHEMA"; else DB="$DATABASE?search_path=$SCHEMA"; fi
  size() { psql -X -tA "$DATABASE" -c "SELECT pg_size_pretty(SUM(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$SCHEMA'"; }
else
  DB="$DIR/geofence.sqlite"
  size() { du -h "$DB" | cut -f1; }
fi
PORT=${PORT:-18080}
REGIONS=${REGIONS:-100000}
DURATION=${DURATION:-15}
cleanup() {
  kill "${SERVER:-}" 2>/dev/null || true
  if [ -n "$SCHEMA" ]; then psql -X -q "$DATABASE" -c "DROP SCHEMA $SCHEMA CASCADE" || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT

start() {
  "$BIN" serve --port "$PORT" --database "$DB" >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 600); do grep -q listening "$DIR/server.log" && return; sleep 0.1; done
  cat "$DIR/server.log"; exit 1
}

KEY=$("$BIN" serve create-key --tenant load --database "$DB")
echo "== $(uptime)"
if [ -n "$SCHEMA" ]; then echo "== store: PostgreSQL schema $SCHEMA"; else echo "== store: SQLite file $DB"; fi
start
echo "== import $REGIONS regions"
"$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01
kill -TERM $SERVER; wait $SERVER || true
echo "== restart with $REGIONS regions and no fixes: $(size) database"
start
grep "engines rebuilt" "$DIR/server.log"
echo "== batches of 10,000 fixes (4 devices, unpaced)"
"$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 4 --batch 10000 --rate 0 --duration "$DURATION"
echo "== $(uptime)"
echo "== single fixes, 2,000 requests/s (32 devices, schedules spread evenly: a steady 2,000/s)"
"$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 32 --batch 1 --rate 2000 --duration "$DURATION"
echo "== $(uptime)"
echo "== single fixes, 2,000 requests/s (32 devices, --aligned: bursts of 32 requests every 16 ms)"
"$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 32 --batch 1 --rate 2000 --duration "$DURATION" --aligned
echo "== $(uptime)"
echo "== single fixes, unpaced (32 devices)"
"$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 32 --batch 1 --rate 0 --duration "$DURATION"
echo "== $(uptime)"
kill -TERM $SERVER; wait $SERVER || true
echo "== restart after the load: $(size) database"
start
grep "engines rebuilt" "$DIR/server.log"
