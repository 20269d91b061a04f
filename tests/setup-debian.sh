#!/usr/bin/env bash
# Installs what is missing on a Debian 12 machine (as root), then configures and builds.
# Used by both README commands; safe to run again.
#   setup-debian.sh            everything the tests need, and every target
#   setup-debian.sh --example  only what the binary needs, and only the binary (README command 1)
set -euo pipefail
cd "$(dirname "$0")/.."
example=0
[ "${1:-}" = --example ] && example=1

# The binary's build and runtime: compiler, CMake, the libraries of the design card, libcurl, zlib,
# SQLite and libpq (the report store), cpp-httplib (attribution serve), and the CA bundle HTTPS sources
# verify servers with.
packages=(build-essential cmake pkg-config libcli11-dev libsimdjson-dev libre2-dev libfmt-dev
          libtomlplusplus-dev zlib1g-dev libcurl4-openssl-dev libsqlite3-dev libcpp-httplib-dev libpq-dev tzdata
          ca-certificates)
# The tests': Catch2, and the tools the integration scripts drive (jq, curl, python3 for recorded
# HTTP answers, openssl for throwaway certificates, sqlite3 to inspect stores, postgresql for the
# shared store's test (started on a private directory, never as a service), chromium for the
# dashboard's browser test, file for cpack's dependency scan).
[ "$example" = 1 ] || packages+=(catch2 jq curl python3 openssl sqlite3 postgresql chromium file)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root (or with sudo) to install packages" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_type=${BUILD_TYPE:-Release}
if [ "$example" = 1 ]; then
  # Keep a test configuration if one is there (a later test run reuses the objects); else configure
  # without the tests, whose framework the example does not need.
  tests=$(sed -n 's/^ATTRIBUTION_TESTS:BOOL=//p' build/CMakeCache.txt 2>/dev/null || true)
  cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" -DATTRIBUTION_TESTS="${tests:-OFF}" >/dev/null
  cmake --build build -j "$(nproc)" --target attribution
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" -DATTRIBUTION_TESTS=ON >/dev/null
  cmake --build build -j "$(nproc)"
fi
