#!/usr/bin/env bash
# The checks `swift test` cannot run, each against the built `geofence` and the package's files:
#
# 1. contract fuzzing (scripts/contract-fuzz.sh): an admin key against SQLite and, when
#    GEOFENCE_TEST_POSTGRES_URL is set, against PostgreSQL; then a read, an ingest and a device
#    key against SQLite. The runs go side by side, each with a fresh store, a port of its own
#    and a time budget; each prints its report when all have ended.
# 2. the Apple platforms, checked on Linux (docs/ios.md, "How CI checks the Apple code"): an
#    app's package with the Server trait off resolves no server package; every file an app
#    compiles (app products, the example with SwiftUI, docs/ios.md's blocks, a consumer
#    package) checked as Xcode would for iOS 17 and macOS 14; then the check's own snippets and
#    the mistakes it must catch re-introduced into a copy.
# 3. the dashboard in headless Chromium (Tests/Browser/run.py), bounded to 10 minutes; its last
#    line is "browser: N passed, M failed". It runs alone: it measures frame times.
#
# .ci/run and scripts/test-long.sh run it after `swift test`; a failure anywhere fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-tools.sh
tools=.build/test-tools/bin
swift build --product geofence
geofence="$(swift build --show-bin-path)/geofence"

echo "== contract fuzzing =="
runs=()
fuzz() { # name, seconds, contract-fuzz.sh arguments…
  local name=$1 seconds=$2
  shift 2
  BIN="$geofence" ST="$tools/st" FUZZ_SECONDS="$seconds" scripts/contract-fuzz.sh "$@" >".build/fuzz-$name.log" 2>&1 &
  runs+=("$name:$!")
}
fuzz admin-sqlite 90 sqlite
if [ -n "${GEOFENCE_TEST_POSTGRES_URL:-}" ]; then fuzz admin-postgres 90 "$GEOFENCE_TEST_POSTGRES_URL"; fi
for scope in read ingest device; do fuzz "$scope-sqlite" 45 sqlite "$scope"; done
failed=0
for run in "${runs[@]}"; do
  name=${run%%:*}
  if wait "${run#*:}"; then outcome=passed; else outcome=FAILED failed=1; fi
  echo "-- fuzzing $name: $outcome"
  tail -n 25 ".build/fuzz-$name.log"
done
[ "$failed" = 0 ] || { echo "contract fuzzing failed (above; full logs in .build/fuzz-*.log)" >&2; exit 1; }

echo "== Apple platforms =="
Tests/LeanConsumer/check.sh
swift build --package-path Tests/AppleTypeCheck
python3 Tests/AppleTypeCheck/check-apple.py
python3 Tests/AppleTypeCheck/AvailabilityCheckTests/test_check_availability.py
python3 Tests/AppleTypeCheck/RegressionTests/test_reintroduced.py

echo "== dashboard browser test =="
timeout 600 "$tools/python" Tests/Browser/run.py --geofence "$geofence"
