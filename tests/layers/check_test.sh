#!/bin/bash
# The layer check passes on the tree as it is and fails, naming the file and both layers, on a
# copy where the scan includes the report (a dependency the wrong way) or one kind includes another.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cmake -DSRC="$SRC" -P "$SRC/cmake/check_layers.cmake"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect_failure() {  # $1: file to append an include to, $2: the header, $3: what the message must say
  rm -rf "$tmp/tree"; mkdir -p "$tmp/tree"
  cp -r "$SRC/core" "$SRC/sources" "$SRC/cli" "$tmp/tree/"
  printf '#include "%s"\n' "$2" >> "$tmp/tree/$1"
  if cmake -DSRC="$tmp/tree" -P "$SRC/cmake/check_layers.cmake" > "$tmp/out" 2>&1; then
    echo "FAIL: $1 including $2 passed the layer check"; exit 1
  fi
  grep -qF "$3" "$tmp/out" || { echo "FAIL: the message does not say: $3"; cat "$tmp/out"; exit 1; }
  echo "ok   $1 -> $2 refused"
}
expect_failure core/scan/scan.cpp core/report/report.hpp "core/scan/scan.cpp: includes core/report/report.hpp: layer 'scan' may not depend on 'report'"
expect_failure core/base/time.cpp core/rules/rules.hpp "layer 'base' may not depend on 'rules'"
expect_failure sources/loki/loki.cpp sources/prometheus/prometheus.hpp "layer 'kind loki' may not depend on 'kind prometheus'"
expect_failure core/pipeline/collect.cpp sources/files/files_source.hpp "layer 'pipeline' may not depend on 'kind files'"
expect_failure core/report/report.cpp cli/messages.hpp "layer 'report' may not depend on 'cli'"
