#!/usr/bin/env bash
# README command 1: install what is missing, build, diagnose the bundled NVLink worked example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup-debian.sh --example >&2
exec ./build/attribution diagnose --config examples/nvlink-signal-integrity/attribution.toml "$@"
