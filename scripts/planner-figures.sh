#!/usr/bin/env bash
# The planner's per-scenario figures (docs/planner.md, "Numbers" and "Event latency"; docs/power.md):
# events, missed / extra, time in hybrid mode, energy per hour next to continuous reporting.
# Debug build, fixed seeds; the drives share one thread (Tests/DriveSupport). The figures are the whole
# drives': GEOFENCE_LONG_TESTS=1 (README, "Tests") runs them at full length.
set -euo pipefail
cd "$(dirname "$0")/.."
GEOFENCE_LONG_TESTS=1 swift test --filter "DriveEquivalenceTests|GPSWhereNeededTests|LatencyTests|OrderEquivalenceTests|RelaunchEquivalenceTests|SpeedTests" 2>&1 \
    | grep -E '^\[(scenario|latency)\]|passed after|failed after|recorded an issue'
