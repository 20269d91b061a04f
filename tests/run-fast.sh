#!/usr/bin/env bash
# The edit-test loop: rebuild what changed (binary and tests, build/), then run the unit, golden and
# scenario tests in parallel. Under a minute after a one-line change on 2 cores. The integration
# tests (real Slurm, Prometheus, HTTP servers, fault matrix, incidents) and the sanitizer and fuzz
# stages stay in tests/run-tests.sh. Extra arguments go to ctest (e.g. -R timeline).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# File by file here (not 16 to a unit as on a clean build): a one-line change recompiles one file.
grep -q '^CMAKE_UNITY_BUILD:BOOL=OFF' build/CMakeCache.txt 2>/dev/null || cmake -S . -B build -DCMAKE_UNITY_BUILD=OFF >/dev/null
# Quiet on success; compiler errors and the layer check's message come through (pipefail: a failed
# build stops here).
cmake --build build -j "$jobs" 2>&1 | { grep -Ev '^\[ *[0-9]+%\] (Building|Linking|Built target|Checking)|^Consolidate' || true; }
cd build && ctest -j "$jobs" -L 'unit|golden|scenario' --output-on-failure "$@" | tail -n 25
