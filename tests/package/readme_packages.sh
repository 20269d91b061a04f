#!/usr/bin/env bash
# README's "Building by hand" names every package tests/setup-debian.sh installs, and every one the
# Slurm, Prometheus and fuzz stages install for themselves: a reader building without the script
# must not discover a missing one from a compiler error.
# Usage: readme_packages.sh
set -euo pipefail
SRC="$(readlink -f "$(dirname "${BASH_SOURCE[0]}")/../..")"
fail() { echo "FAIL: $*" >&2; exit 1; }
section=$(sed -n '/^## Building by hand/,/^```/p' "$SRC/README.md")
[ -n "$section" ] || fail "README.md has no 'Building by hand' section"
# The words of setup-debian.sh's package lists: `packages=(...)` and `packages+=(...)`.
listed=$(sed -n '/^packages=(/,/)/p; /packages+=(/p' "$SRC/tests/setup-debian.sh" |
  sed 's/.*(//; s/).*//' | tr ' ' '\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | sort -u)
[ "$(wc -l <<<"$listed")" -ge 20 ] || fail "could not read setup-debian.sh's package lists"
# The stages' own: the fuzz stage's compiler (`for p in ...; do`), Slurm's (`PKGS=(...)`,
# `PKGS+=(...)`) and Prometheus's (`rs_apt_install NAME`).
stages=$( { grep -ho 'for p in [a-z0-9 .+-]*; do' "$SRC/tests/fuzz/run.sh" | sed 's/for p in //; s/; do//'
            grep -ho 'PKGS+\?=([a-z0-9 .+-]*)' "$SRC/tests/realstack/slurm-up.sh" | sed 's/.*(//; s/)//'
            grep -ho 'rs_apt_install [a-z][a-z0-9 .+-]*' "$SRC/tests/realstack/prometheus-up.sh" | sed 's/rs_apt_install //'
          } | tr ' ' '\n' | grep -v '^$')
[ "$(wc -l <<<"$stages")" -ge 9 ] || fail "could not read the test stages' package lists"
missing=()
for p in $listed $stages; do
  grep -qE "(^|[^a-z0-9.+-])$(sed 's/[.+]/\\&/g' <<<"$p")([^a-z0-9.+-]|$)" <<<"$section" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || fail "README's 'Building by hand' does not name: ${missing[*]}"
echo "ok: README's 'Building by hand' names all $(wc -w <<<"$listed $stages") packages the scripts install"
