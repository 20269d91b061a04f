#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup-debian.sh
./build/attribution rules test >/dev/null
cd build
ctest --output-on-failure -j "$(nproc)"
