#!/usr/bin/env bash
# The .deb as a login node gets it: cpack builds it from the install rules; its Depends must be
# exactly the packages of the libraries the binary links (ldd); dpkg installs it into a scratch
# root (its own dpkg database, nothing of this machine's touched); the installed binary prints its
# version, passes rules test and diagnoses the installed NVLink example; the man page, the
# completions, the docs and the Slurm hook are where they belong, and nothing lands in /etc.
# Usage: deb.sh BUILD_DIR
set -euo pipefail
BUILD="$(readlink -f "$1")"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v cpack >/dev/null || fail "cpack is missing (cmake installs it)"
command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps is missing (dpkg-dev, with build-essential)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$BUILD" && cpack -G DEB -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1) || { cat "$WORK/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$WORK"/pkg/*.deb)
echo "ok: built $(basename "$deb") ($(( $(stat -c %s "$deb") / 1024 )) KiB)"

# Depends: the packages owning the libraries the binary links directly (its NEEDED entries, found
# where ldd finds them), no more and no fewer.
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/([^)]*)//g; s/|.*//; s/ //g' | grep . | sort -u)
needed=$(readelf -d "$BUILD/attribution" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
want=$(for soname in $needed; do
         lib=$(ldd "$BUILD/attribution" | awk -v n="$soname" '$1 == n {print $3}')
         dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null
       done | cut -d: -f1 | sed 's/:amd64$//' | sort -u)
[ "$depends" = "$want" ] || { diff <(echo "$want") <(echo "$depends") >&2 || true; fail "Depends is not exactly the linked libraries' packages (< NEEDED, > Depends)"; }
echo "ok: Depends is exactly the $(wc -l <<<"$depends") packages of the $(wc -w <<<"$needed") linked libraries: $(tr '\n' ' ' <<<"$depends")"

# Installed by dpkg into a scratch root with an empty dpkg database (the libraries come from this
# machine, so their dependency check is waived there).
ROOT="$WORK/root"
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
touch "$ROOT/var/lib/dpkg/status" "$ROOT/var/lib/dpkg/available"
dpkg --root="$ROOT" --force-depends --force-not-root --log=/dev/null -i "$deb" >"$WORK/dpkg.log" 2>&1 \
  || { cat "$WORK/dpkg.log" >&2; fail "dpkg -i into the scratch root"; }
dpkg --root="$ROOT" -s attribution | grep -q "Status: install ok installed" || fail "dpkg does not list it as installed"
BIN="$ROOT/usr/bin/attribution"
"$BIN" version | grep -q "^attribution [0-9]" || fail "the installed binary's version"
"$BIN" rules test >/dev/null || fail "rules test with the installed binary"
out=$(cd "$WORK" && "$BIN" diagnose --config "$ROOT/usr/share/attribution/examples/nvlink-signal-integrity/attribution.toml" --format json)
[ "$(jq -r '.root_causes[0].host' <<<"$out")" = node03 ] || fail "the installed example's root cause"
echo "ok: installed; version, rules test and the NVLink example (root cause node03) run from it"

for f in usr/share/man/man1/attribution.1 usr/share/bash-completion/completions/attribution \
         usr/share/zsh/vendor-completions/_attribution usr/share/doc/attribution/serve.md \
         usr/share/doc/attribution/fleet.md usr/share/attribution/contrib/slurm/attribution-epilog.sh; do
  [ -e "$ROOT/$f" ] || fail "/$f is not installed"
done
[ -x "$ROOT/usr/share/attribution/contrib/slurm/attribution-epilog.sh" ] || fail "the Slurm hook is not executable"
outside=$(dpkg --root="$ROOT" -L attribution | grep -v '^/usr\(/\|$\)' | grep -v '^/\.$' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"
bash -c ". '$ROOT/usr/share/bash-completion/completions/attribution' && complete -p attribution" >/dev/null \
  || fail "the bash completion does not load"
bash -c ". '$ROOT/usr/share/bash-completion/completions/attribution';
  COMP_WORDS=(attribution dia); COMP_CWORD=1; _attribution; [ \"\${COMPREPLY[*]}\" = diagnose ]" \
  || fail "bash completion of 'dia' is not 'diagnose'"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -P-cbou "$ROOT/usr/share/man/man1/attribution.1" 2>&1 | grep -q "EXIT STATUS" || fail "the man page does not render"
fi
echo "ok: man page, bash and zsh completions, docs and the Slurm hook installed under /usr only"
