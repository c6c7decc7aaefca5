#!/usr/bin/env bash
# Push throughput for docs/notifications.md: 10,000 notifications sent through APNsSender to the
# tests' APNs stand-in (HTTP/2 over TLS on 127.0.0.1), 100 in flight; prints pushes per second.
# Both ends run in one process, so the figure is a floor for the sender alone.
#   scripts/push-bench.sh                      # debug build, as the tests are built
#   CONFIGURATION=release scripts/push-bench.sh
#   PUSH_BENCH=50000 PUSH_BENCH_CONCURRENCY=500 scripts/push-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIGURATION=${CONFIGURATION:-debug}
export PUSH_BENCH=${PUSH_BENCH:-10000}
export PUSH_BENCH_CONCURRENCY=${PUSH_BENCH_CONCURRENCY:-100}
swift build -j 1 -c "$CONFIGURATION" --build-tests
swift test -c "$CONFIGURATION" --skip-build --filter PushThroughputBenchmark 2>&1 | grep -E "push-bench:|passed|failed"
