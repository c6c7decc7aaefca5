#!/usr/bin/env bash
# Measures `geofence simulate` end to end on a big CSV track against many circles.
#   scripts/bench-simulate.sh [FIXES] [REGIONS]     (defaults: 10,000,000 and 100,000)
# Generates the inputs once (seeded) under .build/bench-simulate/, builds the release
# binary, and runs it under /usr/bin/time -v (Debian package `time`) for wall time, CPU
# time and peak RSS. Events go to a file; the summary (fixes/s) to stderr.
# Runs: both profiles against REGIONS circles (the engine-bound case), then the same track
# against a single far-away circle (the reading-bound case: CSV parsing and the CLI).
# The load average is printed first: on a shared machine, read CPU time as well as wall.
set -euo pipefail
cd "$(dirname "$0")/.."
FIXES=${1:-10000000}
REGIONS=${2:-100000}
DIR=.build/bench-simulate/${FIXES}x${REGIONS}
if [ ! -f "$DIR/track.csv" ]; then
  echo "generating $FIXES fixes and $REGIONS regions in $DIR ..." >&2
  python3 scripts/bench_simulate_data.py "$DIR" --fixes "$FIXES" --regions "$REGIONS"
fi
# One 10 m circle far from the track: every fix is read and checked, no event.
cat > "$DIR/one-far-circle.geojson" <<'JSON'
{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"id":"far","radius":10}}]}
JSON
ls -l "$DIR" >&2
swift build -c release --product geofence >&2
BIN=$(swift build -c release --show-bin-path)/geofence
run() {   # name regions profile
  echo "== $1 (profile $3); load: $(uptime | sed 's/.*load average: //')" >&2
  /usr/bin/time -v "$BIN" simulate --regions "$2" --track "$DIR/track.csv" \
      --profile "$3" --format jsonl > "$DIR/events-$1.jsonl" 2> "$DIR/time-$1.txt" || {
    cat "$DIR/time-$1.txt" >&2; exit 1; }
  grep -E "geofence simulate|User time|System time|Elapsed|Maximum resident" "$DIR/time-$1.txt" >&2
  wc -l < "$DIR/events-$1.jsonl" | sed 's/^/events: /' >&2
}
run precise "$DIR/regions.geojson" precise
run coreLocation "$DIR/regions.geojson" coreLocation
run one-circle "$DIR/one-far-circle.geojson" precise
