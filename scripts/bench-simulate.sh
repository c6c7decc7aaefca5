#!/usr/bin/env bash
# Measures `geofence simulate` end to end on a big CSV track against many circles.
#   scripts/bench-simulate.sh [FIXES] [REGIONS]     (defaults: 10,000,000 and 100,000)
# Generates the inputs once (seeded) under .build/bench-simulate/, builds the release
# binary, and runs it under /usr/bin/time -v (Debian package `time`) for wall time and
# peak RSS. Events go to a file; the summary (fixes/s) to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
FIXES=${1:-10000000}
REGIONS=${2:-100000}
DIR=.build/bench-simulate/${FIXES}x${REGIONS}
if [ ! -f "$DIR/track.csv" ]; then
  echo "generating $FIXES fixes and $REGIONS regions in $DIR ..." >&2
  python3 scripts/bench_simulate_data.py "$DIR" --fixes "$FIXES" --regions "$REGIONS"
fi
ls -l "$DIR" >&2
swift build -c release --product geofence >&2
BIN=$(swift build -c release --show-bin-path)/geofence
for profile in precise coreLocation; do
  echo "== profile $profile" >&2
  /usr/bin/time -v "$BIN" simulate --regions "$DIR/regions.geojson" --track "$DIR/track.csv" \
      --profile "$profile" --format jsonl > "$DIR/events-$profile.jsonl" 2> "$DIR/time-$profile.txt" || {
    cat "$DIR/time-$profile.txt" >&2; exit 1; }
  grep -E "geofence simulate|User time|System time|Elapsed|Maximum resident" "$DIR/time-$profile.txt" >&2
  wc -l < "$DIR/events-$profile.jsonl" | sed 's/^/events: /' >&2
done
