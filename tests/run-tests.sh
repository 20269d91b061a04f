#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test (ctest): unit, golden, CLI, and the
# integration tests against a real Slurm, a real Prometheus and the recorded Loki/Kubernetes
# answers; the unit, golden and CLI tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
# then each libFuzzer target briefly (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
stage_start=$SECONDS
stage() {  # each stage's wall time, so a slow stage is seen (the suite should stay under 20 min on 2 cores)
  echo "== ($(( (SECONDS - stage_start) / 60 ))m$(( (SECONDS - stage_start) % 60 ))s so far) $*"
}
stage "set-up and release build"
bash tests/setup-debian.sh
./build/attribution rules test >/dev/null
# The fuzz targets build (clang) in the background, at low priority, while the tests wait on Slurm.
# Their compiler is installed first, in the foreground: two installers at once would race for
# dpkg's lock with the Slurm and Prometheus tests' own installs.
bash tests/fuzz/run.sh --install-only
mkdir -p build-fuzz
nice -n 10 bash tests/fuzz/run.sh --build-only > build-fuzz/build.log 2>&1 &
fuzz_build=$!
stage "tests: unit, golden, scenario, fuzz inputs, integration (real Slurm, Prometheus; recorded HTTP)"
(cd build && ctest --output-on-failure -j "$(nproc)")

stage "sanitizers (ASan + UBSan): unit, golden and CLI tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" >/dev/null
cmake --build build-asan -j "$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$(nproc)" -L 'unit|golden|scenario|fuzz')
# The fault matrix's hostile local files under the sanitizers (its HTTP cases mostly wait).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  bash tests/faults/matrix.sh build-asan/attribution --files-only

stage "fuzz targets (libFuzzer, ASan + UBSan): every seed and regression input, then a fixed-seed exploration, docs/reliability.md"
wait "$fuzz_build" || { cat build-fuzz/build.log >&2; exit 1; }
bash tests/fuzz/run.sh --ci
stage "done"
