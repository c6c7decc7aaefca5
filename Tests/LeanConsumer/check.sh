#!/usr/bin/env bash
# An app that depends on CoreLocationBridge, RegionMonitoring and RegionPlanner with the
# package's traits off resolves none of the server's packages (issue 31).
set -euo pipefail
cd "$(dirname "$0")"
server_packages='hummingbird|swift-nio-ssl|swift-certificates|postgres-nio|sqlite-nio|swift-crypto|async-http-client|swift-prometheus|swift-metrics|swift-service-lifecycle|swift-nio|swift-log|swift-argument-parser'
tree=$(swift package show-dependencies --format flatlist 2>/dev/null || swift package show-dependencies)
echo "$tree"
if echo "$tree" | grep -Eiq "$server_packages"; then
  echo "lean consumer: FAILED — an app's package resolves server packages (above)" >&2
  exit 1
fi
echo "lean consumer: no server package resolved"
