#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test (ctest): unit, golden, CLI, and the
# integration tests against a real Slurm and a real Prometheus; then the unit, golden and CLI tests
# again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup-debian.sh
./build/attribution rules test >/dev/null
(cd build && ctest --output-on-failure -j "$(nproc)")

echo "== sanitizers (ASan + UBSan): unit, golden and CLI tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" >/dev/null
cmake --build build-asan -j "$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$(nproc)" -LE 'slurm|prometheus|scale')

echo "== fuzzing (libFuzzer, ASan + UBSan): 20 s per parser, docs/reliability.md"
bash tests/fuzz/run.sh 20
