#!/usr/bin/env bash
# Start-up benchmark for docs/server.md: a release `geofence serve` on a store holding 100,000
# regions and 10 million fixes, timed from process start until /health answers —
#   1. with no snapshot (the whole journal replayed: what every start-up did before snapshots),
#   2. from a snapshot the server wrote itself (snapshot + journal tail).
# Regions go in through the API (the server's own import); fixes are written straight into the
# database in the exact stored format (scripts/server_startup_seed.py: one SQLite transaction,
# or COPY into PostgreSQL), then one real fix is posted so that the server takes its snapshot.
#   swift build -c release --product geofence && scripts/server-startup.sh
#   DATABASE=postgres://USER:PASSWORD@HOST:PORT/DB scripts/server-startup.sh
#   FIXES=1000000 DEVICES=1000 scripts/server-startup.sh          # smaller
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GEOFENCE:-.build/release/geofence}
FIXES=${FIXES:-10000000}
DEVICES=${DEVICES:-10000}
BATCH=${BATCH:-100}
REGIONS=${REGIONS:-100000}
PORT=${PORT:-18090}
DIR=$(mktemp -d)
DATABASE=${DATABASE:-}
SCHEMA=""
END=$(( $(date +%s) - 3600 ))          # the last stored fix: an hour ago
if [[ "$DATABASE" == postgres://* || "$DATABASE" == postgresql://* ]]; then
  SCHEMA="startup_$(date +%s)_$$"
  psql -X -q -v ON_ERROR_STOP=1 "$DATABASE" -c "CREATE SCHEMA $SCHEMA"
  if [[ "$DATABASE" == *\?* ]]; then DB="$DATABASE&search_path=$SCHEMA"; else DB="$DATABASE?search_path=$SCHEMA"; fi
  sql() { PGOPTIONS="-c search_path=$SCHEMA" psql -X -q -tA -v ON_ERROR_STOP=1 "$DATABASE" "$@"; }
  size() { psql -X -tA "$DATABASE" -c "SELECT pg_size_pretty(SUM(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$SCHEMA'"; }
  seed() {
    python3 scripts/server_startup_seed.py postgres-journal startup "$FIXES" "$DEVICES" "$BATCH" "$END" \
      | sql -c "COPY journal (tenant, kind, device, device_version, body) FROM STDIN"
    python3 scripts/server_startup_seed.py postgres-devices startup "$FIXES" "$DEVICES" "$BATCH" "$END" \
      | sql -c "COPY devices (tenant, id, last_fix, last_time, fix_count, version, updated_at) FROM STDIN"
    sql -c "ANALYZE journal" -c "ANALYZE devices"
  }
  snapshots() { sql -c "SELECT count(*) FROM engine_snapshots"; }
else
  DB="$DIR/geofence.sqlite"
  size() { du -h "$DB" | cut -f1; }
  seed() { python3 scripts/server_startup_seed.py sqlite "$DB" startup "$FIXES" "$DEVICES" "$BATCH" "$END"; }
  snapshots() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM engine_snapshots').fetchone()[0])" "$DB"; }
fi
cleanup() {
  kill "${SERVER:-}" 2>/dev/null || true
  if [ -n "$SCHEMA" ]; then psql -X -q "$DATABASE" -c "DROP SCHEMA $SCHEMA CASCADE" || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT

# Starts the server with extra flags; STARTUP is set to the seconds until /health answered.
start() {
  local t0 t1
  t0=$(date +%s.%N)
  "$BIN" serve --port "$PORT" --database "$DB" "$@" >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 30000); do
    if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
      t1=$(date +%s.%N)
      STARTUP=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$t1")
      return
    fi
    kill -0 $SERVER 2>/dev/null || { cat "$DIR/server.log"; exit 1; }
    sleep 0.02
  done
  cat "$DIR/server.log"; exit 1
}
stop() { kill -TERM $SERVER; wait $SERVER || true; }

KEY=$("$BIN" serve create-key --tenant startup --database "$DB")
echo "== $(uptime)"
if [ -n "$SCHEMA" ]; then STORE="PostgreSQL schema $SCHEMA"; else STORE="SQLite file"; fi
echo "== store: $STORE; $REGIONS regions, $FIXES fixes of $DEVICES devices in batches of $BATCH"
start --snapshot-every-fixes 0
"$BIN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01 | grep -i import || true
stop
s=$(date +%s)
seed
echo "== seeded $FIXES fixes in $(( $(date +%s) - s )) s: $(size) database"
for i in 1 2; do
  start --snapshot-every-fixes 0
  echo "== start-up without a snapshot (whole journal replayed), run $i: $STARTUP s"
  grep "engines rebuilt" "$DIR/server.log" | sed 's/^/   /'
  stop
done
# One real fix, with a snapshot after every fix: the server writes its own snapshot.
start --snapshot-every-fixes 1
curl -sf -X POST "http://127.0.0.1:$PORT/v1/devices/dev-0/locations" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d "{\"latitude\":31.5,\"longitude\":121.5,\"timestamp\":$(( END + 1 )),\"horizontalAccuracy\":10}" >/dev/null
for _ in $(seq 1 600); do [ "$(snapshots)" = 1 ] && break; sleep 0.1; done
stop
echo "== snapshot written: $(snapshots) row(s); $(size) database"
for i in 1 2 3; do
  start
  echo "== start-up from the snapshot, run $i: $STARTUP s"
  grep "engines rebuilt" "$DIR/server.log" | sed 's/^/   /'
  stop
done
