#!/usr/bin/env bash
# Side-by-side load figures of two server builds with one load generator, in one run (so both
# see the same machine): for each build, a fresh store with REGIONS regions, then batched
# ingestion (4 devices × 10,000-fix batches, unpaced) and paced single fixes (32 devices,
# 2,000 requests/s), DURATION seconds each. Builds alternate twice (A B A B) to show the noise.
#   OLD=.build-old/geofence NEW=.build/release/geofence scripts/server-load-compare.sh
#   DATABASE=postgres://USER:PASSWORD@HOST:PORT/DB …   # the same on PostgreSQL (fresh schema per run)
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${OLD:?path of the old geofence executable}
NEW=${NEW:-.build/release/geofence}
LOADGEN=${LOADGEN:-$NEW}
REGIONS=${REGIONS:-20000}
DURATION=${DURATION:-5}
DATABASE=${DATABASE:-}
PORT=${PORT:-18090}
DIR=$(mktemp -d)
SERVER=
SCHEMA=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$SCHEMA" ]; then psql -X -q "$DATABASE" -c "DROP SCHEMA $SCHEMA CASCADE" >/dev/null 2>&1 || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT

one() {   # $1 label, $2 executable
  local db
  if [[ "$DATABASE" == postgres* ]]; then
    SCHEMA="cmp_$(date +%s%N | cut -c1-13)_$$"
    psql -X -q -v ON_ERROR_STOP=1 "$DATABASE" -c "CREATE SCHEMA $SCHEMA"
    db="$DATABASE?search_path=$SCHEMA"
  else
    db="$DIR/$1-$RANDOM.sqlite"
  fi
  local key
  key=$("$2" serve create-key --tenant load --database "$db")
  "$2" serve --port "$PORT" --database "$db" >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do grep -q listening "$DIR/server.log" && break; sleep 0.1; done
  "$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01 >/dev/null
  echo "== $1 batched: $("$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --devices 4 --batch 10000 --rate 0 --duration "$DURATION" | tr '\n' ' ')"
  echo "== $1 paced:   $("$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --devices 32 --batch 1 --rate 2000 --duration "$DURATION" | tr '\n' ' ')"
  kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=
  if [ -n "$SCHEMA" ]; then psql -X -q "$DATABASE" -c "DROP SCHEMA $SCHEMA CASCADE" >/dev/null; SCHEMA=; fi
}

echo "== $(uptime)"
one old "$OLD"; one new "$NEW"; one old "$OLD"; one new "$NEW"
echo "== $(uptime)"
