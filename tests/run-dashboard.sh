#!/usr/bin/env bash
# After the README's two set-up commands: diagnose the bundled examples into a report store, then serve the dashboard on
# http://127.0.0.1:8080/ (Ctrl-C stops it). Builds what is missing first, as run-example.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup-debian.sh --example >&2
store=build/examples.db
rm -f "$store" "$store-wal" "$store-shm"
for config in examples/*/attribution.toml; do
  ./build/attribution diagnose --config "$config" --store "$store" --format json -o /dev/null
  echo "stored: $(dirname "$config")" >&2
done
exec ./build/attribution serve --store "$store" --listen "${LISTEN:-127.0.0.1:8080}" "$@"
