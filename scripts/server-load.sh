#!/usr/bin/env bash
# Load figures for docs/server.md: a release `geofence serve` on a fresh SQLite file, 100,000
# regions, then batched ingestion and paced single-fix requests, then a restart to time the
# start-up. Bounded: every run has a fixed duration.
#   swift build -c release --product geofence && scripts/server-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GEOFENCE:-.build/release/geofence}
DIR=$(mktemp -d)
DB="$DIR/geofence.sqlite"
PORT=${PORT:-18080}
REGIONS=${REGIONS:-100000}
DURATION=${DURATION:-15}
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DIR"' EXIT

start() {
  "$BIN" serve --port "$PORT" --database "$DB" >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 600); do grep -q listening "$DIR/server.log" && return; sleep 0.1; done
  cat "$DIR/server.log"; exit 1
}

KEY=$("$BIN" serve create-key --tenant load --database "$DB")
echo "== $(uptime)"
start
echo "== import $REGIONS regions"
"$BIN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01
kill -TERM $SERVER; wait $SERVER || true
echo "== restart with $REGIONS regions and no fixes: $(du -h "$DB" | cut -f1) database"
start
grep "engines rebuilt" "$DIR/server.log"
echo "== batches of 10,000 fixes (4 devices, unpaced)"
"$BIN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 4 --batch 10000 --rate 0 --duration "$DURATION"
echo "== $(uptime)"
echo "== single fixes, 2,000 requests/s (32 devices)"
"$BIN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 32 --batch 1 --rate 2000 --duration "$DURATION"
echo "== $(uptime)"
echo "== single fixes, unpaced (32 devices)"
"$BIN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --devices 32 --batch 1 --rate 0 --duration "$DURATION"
echo "== $(uptime)"
kill -TERM $SERVER; wait $SERVER || true
echo "== restart after the load: $(du -h "$DB" | cut -f1) database"
start
grep "engines rebuilt" "$DIR/server.log"
