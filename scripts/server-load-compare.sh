#!/usr/bin/env bash
# Side-by-side load figures of two server builds with one load generator, in one run (so both
# see the same machine): for each build, a fresh store with REGIONS regions, then batched
# ingestion (4 devices × 10,000-fix batches, unpaced) and paced single fixes (32 devices,
# 2,000 requests/s), DURATION seconds each. Builds alternate twice (A B A B) to show the noise.
#   OLD=.build-old/geofence NEW=.build/release/geofence scripts/server-load-compare.sh
#   DATABASE=postgres://USER:PASSWORD@HOST:PORT/DB …   # the same on PostgreSQL (fresh schema per run)
#   OLD=$NEW OLD_ARGS= NEW_ARGS="--sqlite-synchronous full" …   # one build, two settings
#   ROUNDS=4 …   # alternate more often (A B A B A B A B)
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${OLD:?path of the old geofence executable}
NEW=${NEW:-.build/release/geofence}
LOADGEN=${LOADGEN:-$NEW}
REGIONS=${REGIONS:-20000}
DURATION=${DURATION:-5}
DATABASE=${DATABASE:-}
OLD_ARGS=${OLD_ARGS:-}
NEW_ARGS=${NEW_ARGS:-}
ROUNDS=${ROUNDS:-2}
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

one() {   # $1 label, $2 executable, $3 extra `serve` arguments
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
  # shellcheck disable=SC2086 # $3 is a list of arguments
  "$2" serve --port "$PORT" --database "$db" $3 >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do grep -q listening "$DIR/server.log" && break; sleep 0.1; done
  "$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01 >/dev/null
  echo "== $1 batched: $("$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --devices 4 --batch 10000 --rate 0 --duration "$DURATION" | tr '\n' ' ')" | tee -a "$DIR/results"
  echo "== $1 paced:   $("$LOADGEN" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --devices 32 --batch 1 --rate 2000 --duration "$DURATION" | tr '\n' ' ')" | tee -a "$DIR/results"
  kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=
  if [ -n "$SCHEMA" ]; then psql -X -q "$DATABASE" -c "DROP SCHEMA $SCHEMA CASCADE" >/dev/null; SCHEMA=; fi
}

echo "== $(uptime)"
: >"$DIR/results"
for _ in $(seq 1 "$ROUNDS"); do one old "$OLD" "$OLD_ARGS"; one new "$NEW" "$NEW_ARGS"; done
echo "== $(uptime)"
# Medians over the rounds: batched fixes/s, paced p50 and p99 (ms), and new ÷ old.
python3 - "$DIR/results" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"== (\w+) (batched|paced):", line)
    if not m:
        continue
    label, phase = m.groups()
    rate = re.search(r"\(([\d.]+) fixes/s\)", line)
    p50 = re.search(r"p50 ([\d.]+)", line)
    p99 = re.search(r"p99 ([\d.]+)", line)
    key = (label, phase)
    rows.setdefault(key, []).append((float(rate.group(1)), float(p50.group(1)), float(p99.group(1))))
def med(label, phase, i):
    return statistics.median(r[i] for r in rows[(label, phase)])
print("== medians over %d rounds" % len(rows.get(("old", "batched"), [])))
for phase, i, name in [("batched", 0, "fixes/s"), ("paced", 1, "p50 ms"), ("paced", 2, "p99 ms")]:
    old, new = med("old", phase, i), med("new", phase, i)
    print("== %-7s %-7s old %12.2f  new %12.2f  new/old %.3f" % (phase, name, old, new, new / old))
PY
