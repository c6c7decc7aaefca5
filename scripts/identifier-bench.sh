#!/usr/bin/env bash
# Identifier normalization on the ingestion path, before and after (scripts/identifier-bench/main.swift):
# compiles the server's own Identifier.swift, optimized, beside the benchmark, and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
swiftc -O -package-name bench -module-name IdentifierBench \
    Sources/GeofenceServer/Model/Identifier.swift scripts/identifier-bench/main.swift -o "$out/identifier-bench"
"$out/identifier-bench"
