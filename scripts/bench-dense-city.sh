#!/usr/bin/env bash
# `geofence simulate` end to end on the dense city (issue 35): one car, 15 m per fix, against
# 100,000 circles of 50-500 m in 50 km x 50 km (about 11 circles over any point).
#
#   scripts/bench-dense-city.sh [FIXES] [REGIONS]       one track (defaults 10,000,000 and 100,000)
#   scripts/bench-dense-city.sh fleet [TRACKS] [FIXES]  TRACKS tracks of FIXES fixes (200 x 50,000),
#                                                       on one core and on two (taskset), same run
#
# Environment:
#   BIN=path       the binary to measure (default: builds this tree's release `geofence`)
#   BASE=path      a second binary (e.g. an older build) run alternately with BIN, round by round
#   ROUNDS=n       rounds (default 2); PROFILES="precise coreLocation" (the default)
#   NICE=-20       (as root) run the measured process before other work on the machine: its nice
#                  value and, where the kernel groups tasks by session (autogroup, where a nice
#                  value weighs only within its session), this session's; without it, other
#                  sessions' builds take an equal share of each core, and "2 cores" may be one
#   QUIET=1        before each run, wait (at most QUIET_MAX seconds, default 600) until no
#                  process of another session whose autogroup is raised too (nice < 0) has used
#                  a fifth of a core over 3 s: such a session takes an equal share of the cores,
#                  whatever NICE says (its wait is not timed)
#
# Inputs are generated once (seeded, scripts/dense_city_data.py) under .build/dense-city/.
# Every run goes through /usr/bin/time -v (Debian package `time`): wall time, CPU time, peak RSS;
# fixes/s is FIXES / wall time, everything included (start, loading the regions, writing the
# events as jsonl to a file). The outputs of all builds and core counts are compared with cmp.
# The load average is printed with every run: on a shared machine, read CPU time as well as wall.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=single
if [ "${1:-}" = fleet ]; then
  MODE=fleet
  shift
fi
ROUNDS=${ROUNDS:-2}
NICE=${NICE:-0}
if [ "$NICE" != 0 ] && [ -w /proc/self/autogroup ]; then
  AUTOGROUP_NICE=$(sed -n 's/.* nice //p' /proc/$$/autogroup)
  echo "$NICE" >/proc/$$/autogroup || true
  trap 'echo "$AUTOGROUP_NICE" >/proc/$$/autogroup || true' EXIT
fi
PROFILES=${PROFILES:-precise coreLocation}
if [ $MODE = single ]; then
  FIXES=${1:-10000000}
  REGIONS=${2:-100000}
  DIR=.build/dense-city/${FIXES}x${REGIONS}
  [ -f "$DIR/track.csv" ] || python3 scripts/dense_city_data.py "$DIR" --fixes "$FIXES" --regions "$REGIONS"
  TRACK_ARGS=(--track "$DIR/track.csv")
  TOTAL=$FIXES
else
  TRACKS=${1:-200}
  PER=${2:-50000}
  DIR=.build/dense-city/fleet-${TRACKS}x${PER}
  [ -f "$DIR/tracks/000.csv" ] ||
    python3 scripts/dense_city_data.py "$DIR" --fixes 0 --tracks "$TRACKS" --track-fixes "$PER"
  TRACK_ARGS=()
  for f in "$DIR"/tracks/*.csv; do TRACK_ARGS+=(--track "$f"); done
  TOTAL=$((TRACKS * PER))
fi
if [ -z "${BIN:-}" ]; then
  swift build -c release --product geofence >&2
  BIN=$(swift build -c release --show-bin-path)/geofence
fi

# Waits while another session with a raised autogroup keeps a core busy (QUIET=1).
wait_quiet() {
  local own waited=0 busy
  own=$(cut -d' ' -f1 /proc/$$/autogroup)
  while ((waited < ${QUIET_MAX:-600})); do
    busy=$(top -b -n 2 -d 3 -w 200 | awk '/^top -/ { n++ } n == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 > 20 { print $1 }' |
      while read -r pid; do
        group=$(cat "/proc/$pid/autogroup" 2>/dev/null) || continue
        if [ "${group%% *}" != "$own" ] && [ "${group##* }" -lt 0 ]; then echo "$pid"; fi
      done)
    [ -z "$busy" ] && return 0
    waited=$((waited + 3))
  done
  echo "warning: another raised session still busy after ${QUIET_MAX:-600} s" >&2
}

# run NAME BINARY PROFILE [taskset cores]
run() {
  local name=$1 bin=$2 profile=$3 cores=${4:-}
  local out="$DIR/events-$name-$profile${cores:+-cpu$cores}.jsonl" log="$DIR/time.txt"
  local pin=()
  [ -n "$cores" ] && pin=(taskset -c "$cores")
  local load
  # The last round's output goes first: truncating 0.9 GB is no part of the measured run.
  rm -f "$out"
  [ "${QUIET:-0}" = 1 ] && wait_quiet
  load=$(cut -d' ' -f1 /proc/loadavg)
  nice -n "$NICE" "${pin[@]}" /usr/bin/time -v "$bin" simulate --regions "$DIR/regions.geojson" "${TRACK_ARGS[@]}" \
    --profile "$profile" --format jsonl --quiet --output "$out" 2> "$log" || { cat "$log" >&2; exit 1; }
  local wall user sys rss
  wall=$(awk -F': ' '/Elapsed/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
  user=$(awk -F': ' '/User time/ { print $2 }' "$log")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$log")
  rss=$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$log")
  printf '%-6s %-13s %-6s %8.2f s %7.3f M/s %10d events  cpu %6.2f + %5.2f s (%4.2f cores)  %5d MB  load %s\n' \
    "$name" "$profile" "${cores:-all}" "$wall" "$(echo "$TOTAL / $wall / 1000000" | bc -l)" \
    "$(wc -l < "$out")" "$user" "$sys" "$(echo "($user + $sys) / $wall" | bc -l)" "$rss" "$load"
}

rm -f "$DIR"/events-*.jsonl
echo "build  profile       cores      wall     fixes/s       events         user + sys CPU (cores used)   peak RSS"
for ((r = 1; r <= ROUNDS; r++)); do
  for profile in $PROFILES; do
    if [ $MODE = single ]; then
      [ -n "${BASE:-}" ] && run base "$BASE" "$profile"
      run new "$BIN" "$profile"
    else
      run new "$BIN" "$profile" 0
      run new "$BIN" "$profile" 0,1
      [ -n "${BASE:-}" ] && run base "$BASE" "$profile" 0,1
    fi
  done
done
# Every build and core count must have written the same events.
for profile in $PROFILES; do
  first=""
  for f in "$DIR"/events-*-"$profile"*.jsonl; do
    if [ -z "$first" ]; then first=$f; elif ! cmp -s "$first" "$f"; then echo "DIFFERENT: $first $f" >&2; exit 1; fi
  done
  echo "$profile: identical output ($(ls "$DIR"/events-*-"$profile"*.jsonl | wc -l) files)"
done
