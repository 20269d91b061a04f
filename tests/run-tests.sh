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
# One clang tree (build-asan/) serves the sanitizer stage and the fuzz targets: the library, the CLI
# and the tests under ASan + UBSan, the library instrumented for libFuzzer as well. It builds in the
# background, at low priority, while the release tests wait on Slurm. Its compiler is installed
# first, in the foreground: two installers at once would race for dpkg's lock with the Slurm and
# Prometheus tests' own installs.
bash tests/fuzz/run.sh --install-only
export FUZZ_BUILD_DIR=build-asan FUZZ_WITH_TESTS=ON
mkdir -p build-asan
nice -n 10 bash tests/fuzz/run.sh --build-only > build-asan/build.log 2>&1 &
sanitizer_build=$!
stage "tests: unit, golden, scenario, fuzz inputs, integration (real Slurm, Prometheus; recorded HTTP)"
(cd build && ctest --output-on-failure -j "$(nproc)")

stage "sanitizers (ASan + UBSan, clang): unit, golden, scenario and fuzz-input tests"
wait "$sanitizer_build" || { cat build-asan/build.log >&2; exit 1; }
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$(nproc)" -L 'unit|golden|scenario|fuzz')
# The fault matrix's hostile local files under the sanitizers (its HTTP cases mostly wait).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  bash tests/faults/matrix.sh build-asan/attribution --files-only

stage "fuzz targets (libFuzzer, ASan + UBSan): every seed and regression input, then a fixed-seed exploration, docs/reliability.md"
bash tests/fuzz/run.sh --ci
stage "done"
