#!/usr/bin/env bash
# Measures whether the drive harnesses leave Swift's cooperative pool to the in-process servers:
# an in-process server's request p99 alone and beside as many planner drives as there are cores,
# the drives on the drive executor (must stay within 2×) and, as the control, on the pool
# (grows past 2×). Run it on a machine that nothing else is using: both are ratios of timings.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
GEOFENCE_MEASURE=1 swift test --skip-build --filter PoolSharingTests
