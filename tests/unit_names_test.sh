#!/usr/bin/env bash
# Catch2 v2's ctest discovery (CatchAddTests.cmake) keeps a test name as a CMake list, so a name with
# ';' becomes several names that match no test case, and a run that matches nothing passes ("No tests
# ran"): such a test never runs under ctest. Usage: unit_names_test.sh ATTRIBUTION_TESTS
set -euo pipefail
names=$("$1" --list-test-names-only) || true  # Catch v2 exits with the number listed
[ -n "$names" ] || { echo "no test names listed by $1" >&2; exit 1; }
if bad=$(grep -n ';' <<<"$names"); then
  echo "test names with ';' never run under ctest; use ' / ' instead:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "$(wc -l <<<"$names") test names, none with ';'"
