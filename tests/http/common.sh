# Shared by the scripts that test against tests/http/serve.py (tests/loki, tests/kueue): sourced
# after `set -euo pipefail` with SRC set to the source tree. Gives fail, WORK (removed on exit),
# serve (start a server; its port in the port file) and stop_servers.
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq is missing (tests/setup-debian.sh installs it)"
command -v python3 >/dev/null || fail "python3 is missing (tests/setup-debian.sh installs it)"
WORK="$(mktemp -d)"
PIDS=()
stop_servers() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap 'stop_servers; rm -rf "$WORK"' EXIT
serve() {  # routes file, port file, log file, extra serve.py args (--tls-cert C --tls-key K)
  python3 "$SRC/tests/http/serve.py" --routes "$1" --port-file "$2" --log "$3" "${@:4}" &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$2" ] && return 0; sleep 0.1; done
  fail "serve.py did not start"
}
