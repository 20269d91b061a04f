#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, build-fuzz/) and runs each for SECONDS on a
# copy of its seed corpus, two at a time.
# Usage: tests/fuzz/run.sh [--install-only | --build-only] [--ci | SECONDS] [TARGET...]
# (TARGET as in tests/fuzz/fuzz_TARGET.cpp; all by default). Exits non-zero when a target
# crashed, hung, leaked or hit a sanitizer; its inputs stay in the printed temp dir.
# The repo's corpora are never written: new inputs go to the temp copy, which is removed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build_only=0 ci=0 install_only=0
if [ "${1:-}" = --install-only ]; then install_only=1; shift; fi  # the compiler only (tests/run-tests.sh)
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi  # CI builds early, in the background
# --ci: every committed seed and regression input, then a fixed number of new inputs from a fixed
# seed (about 15 s per target): the same commit fuzzes the same inputs on every run, so CI cannot
# turn red by chance, and a change that opens a new path gets it explored before it lands (run
# `tests/fuzz/run.sh --ci` before committing parser changes). Longer campaigns: SECONDS.
if [ "${1:-}" = --ci ]; then ci=1; shift; fi
secs=30
if [ "$ci" = 0 ] && [ $# -gt 0 ]; then secs=$1; shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do t=${f##*/fuzz_}; targets+=("${t%.cpp}"); done
fi

# clang and its libFuzzer runtime (Debian 12: clang-14, libclang-rt-14-dev).
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then echo "fuzz: run as root (or with sudo) to install packages" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "$install_only" = 1 ] && exit 0

# FUZZ_BUILD_DIR (default build-fuzz) and FUZZ_WITH_TESTS=ON: CI builds one clang tree for both the
# fuzz targets and the sanitizer test stage (tests/run-tests.sh), the CLI and tests under ASan + UBSan too.
build=$root/${FUZZ_BUILD_DIR:-build-fuzz}
with_tests=${FUZZ_WITH_TESTS:-OFF}
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"  # an older GCC configuration of this directory
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  flags="-O1 -gline-tables-only"
  [ "$with_tests" = ON ] && flags="$flags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  CXX=clang++ CC=clang cmake -S "$root" -B "$build" -DATTRIBUTION_FUZZ=ON -DATTRIBUTION_TESTS="$with_tests" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
fi
extra=() pick=(--target "${targets[@]/#/fuzz_}")
# With the tests the whole tree is wanted: built as one make graph, in parallel (a list of targets is
# built one target after another).
[ "$with_tests" = ON ] && extra=(attribution attribution_tests) pick=()
cmake --build "$build" -j 2 "${pick[@]}" | grep -Ev '^\[ *[0-9]+%\]' || true
for t in "${targets[@]}" "${extra[@]}"; do
  f=$build/fuzz_$t
  [ "$t" = attribution ] || [ "$t" = attribution_tests ] && f=$build/$t
  [ -x "$f" ] || { echo "fuzz: ${f#"$root"/} was not built" >&2; exit 1; }
done
[ "$build_only" = 0 ] || exit 0

# About 15 s of inputs per target on two cores (measured at -O1 with ASan + UBSan).
ci_runs() {
  case $1 in
    hostlist) echo 400 ;;  # an input may expand to the 1,000,000-host cap: slow by design
    bundle) echo 22000 ;;
    rules) echo 37000 ;;
    slurm) echo 45000 ;;
    config) echo 100000 ;;
    static_workload) echo 220000 ;;
    kube_yaml) echo 450000 ;;
    loki) echo 600000 ;;
    *) echo 750000 ;;
  esac
}

# Longest input worth trying per target: a log line is short, answers and config files are not.
max_len() {
  case $1 in
    hostlist) echo 256 ;;
    line_prefix) echo 1024 ;;
    rules | config | static_workload | kube_yaml) echo 8192 ;;
    *) echo 16384 ;;
  esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/attribution-fuzz.XXXXXX")
run_one() {
  local t=$1 d=$work/$1
  local budget=(-max_total_time="$secs")
  mkdir -p "$d/corpus" "$d/crashes" "$d/tmp"
  if [ "$ci" = 1 ]; then
    budget=(-runs="$(ci_runs "$t")" -seed=1 -max_total_time=120)
    cp -r "$root/tests/fuzz/regressions/$t/." "$d/corpus/" 2>/dev/null || true
  fi
  cp -r "$root/tests/fuzz/corpus/$t/." "$d/corpus/" 2>/dev/null || true
  local rc=0
  (cd "$d" && TMPDIR=$d/tmp ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz_$t" "${budget[@]}" -timeout=5 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
      -print_final_stats=1 -artifact_prefix="$d/crashes/" "$d/corpus" >"$d/log" 2>&1) || rc=$?
  echo "$rc" >"$d/rc"
}

# Two at a time: the CI machine has two cores.
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
for t in "${targets[@]}"; do
  d=$work/$t
  rc=$(cat "$d/rc" 2>/dev/null || echo 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log" | tail -1)
  if [ "$rc" = 0 ]; then
    if [ "$ci" = 1 ]; then printf 'fuzz %-16s ok      %10s runs, seed 1, after every seed and regression\n' "$t" "${runs:-?}"
    else printf 'fuzz %-16s ok      %10s runs in %ss\n' "$t" "${runs:-?}" "$secs"; fi
  else
    failed=1
    what=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|UndefinedBehaviorSanitizer): [a-z-]+|runtime error: .*|fuzz invariant broken: .*' "$d/log" || echo "exit $rc")
    printf 'fuzz %-16s FAILED  %10s runs: %s\n' "$t" "${runs:-?}" "$what"
    for a in "$d"/crashes/*; do [ -e "$a" ] && echo "  input: $a"; done
    echo "  log:   $d/log"
  fi
done
if [ "$failed" = 0 ]; then rm -rf "$work"; else echo "fuzz: inputs and logs kept in $work" >&2; fi
exit "$failed"
