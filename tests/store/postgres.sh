#!/usr/bin/env bash
# The PostgreSQL report store against a real PostgreSQL: initdb and pg_ctl on a private directory
# and a free port of 127.0.0.1 (no systemd, no cluster of the machine's touched), a role with a
# password, then: the store's own cases (attribution_tests "[postgres]"); 40 diagnoses from 8
# processes at once; history, nodes and serve reading it; and the database stopped before a
# diagnosis keeps its report: a clear error, exit 5, the report still written.
# Usage: postgres.sh PATH/TO/attribution PATH/TO/attribution_tests
set -euo pipefail
ATTR="$(readlink -f "$1")"
TESTS="$(readlink -f "$2")"
SRC="$(readlink -f "$(dirname "${BASH_SOURCE[0]}")/../..")"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq is missing (tests/setup-debian.sh installs it)"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PGBIN/initdb" ] || fail "PostgreSQL's server is missing (tests/setup-debian.sh installs postgresql)"
id postgres >/dev/null 2>&1 || fail "no postgres user (the postgresql package creates it)"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
PGDATA="$WORK/data"
as_postgres() { runuser -u postgres -- "$@"; }
stop_pg() { as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate stop >/dev/null 2>&1 || true; }
SERVER=""
trap '[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true; stop_pg; rm -rf "$WORK"' EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$PGDATA" "$WORK/sock"
chown postgres "$PGDATA" "$WORK/sock"
echo postgres-admin > "$WORK/sock/pw"
chown postgres "$WORK/sock/pw"
as_postgres "$PGBIN/initdb" -D "$PGDATA" -A scram-sha-256 -U postgres --pwfile="$WORK/sock/pw" >/dev/null \
  || fail "initdb failed"
as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -l "$WORK/sock/pg.log" -w -t 60 \
  -o "-p $PORT -k $WORK/sock -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60" start >/dev/null \
  || { cat "$WORK/sock/pg.log" >&2; fail "PostgreSQL did not start"; }
PGPASSWORD=postgres-admin "$PGBIN/psql" -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE attribution LOGIN PASSWORD 's3cret-pw'" -c "CREATE DATABASE reports OWNER attribution" \
  -c "CREATE DATABASE cli OWNER attribution" >/dev/null
echo "ok: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT"

# 1. The store's own cases, the same as SQLite's.
ATTRIBUTION_TEST_PG_URL="postgresql://attribution:s3cret-pw@127.0.0.1:$PORT/reports" "$TESTS" "[postgres]" \
  || fail "the store's cases against PostgreSQL"

# 2. 40 diagnoses, 8 processes at a time, into a database with no schema yet.
URL="postgresql://attribution:s3cret-pw@127.0.0.1:$PORT/cli"
cd "$SRC"
for round in 1 2 3 4 5; do
  pids=()
  for w in 1 2 3 4 5 6 7 8; do
    "$ATTR" diagnose --config examples/xid79-gpu-fallen-off-bus/attribution.toml --store "$URL" >/dev/null 2>"$WORK/err.$w" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { cat "$WORK/err.$((i + 1))" >&2; fail "a concurrent diagnose --store failed (round $round)"; }
  done
done
history=$("$ATTR" history --store "$URL" --limit 1000 --format json)
[ "$(jq '.reports | length' <<<"$history")" = 40 ] || fail "40 diagnoses stored $(jq '.reports | length' <<<"$history")"
[ "$(jq '[.reports[].id] | unique | length' <<<"$history")" = 40 ] || fail "report ids repeat"
echo "ok: 40 diagnoses from 8 processes at once, 40 reports stored once each"
# The config's [store] url does what --store does.
cp -r examples/nvlink-signal-integrity "$WORK/nvlink"
printf '\n[store]\nurl = "%s"\n' "$URL" >> "$WORK/nvlink/attribution.toml"
"$ATTR" diagnose --config "$WORK/nvlink/attribution.toml" --format json >/dev/null
nodes=$("$ATTR" nodes --config "$WORK/nvlink/attribution.toml" --format json)
[ "$(jq -r '.nodes[0].host' <<<"$nodes")" = node02 ] || fail "nodes: $(head -c 300 <<<"$nodes")"
[ "$(jq -r '.nodes[0].root_cause_count' <<<"$nodes")" = 40 ] || fail "node02 is at the root of 40"
[ "$("$ATTR" history --store "$URL" --family accelerator-fabric --format json | jq '.reports | length')" = 1 ] \
  || fail "[store] url did not store the NVLink diagnosis"
echo "ok: [store] url, history and nodes read PostgreSQL"

# 3. serve over the same database; the stored JSON is what the CLI printed.
want=$("$ATTR" diagnose --config examples/host-oom-kill/attribution.toml --format json --store "$URL")
"$ATTR" serve --store "$URL" --listen 127.0.0.1:0 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do grep -q serving "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
SPORT=$(sed -n 's/.*http:\/\/127.0.0.1:\([0-9]*\)\/.*/\1/p' "$WORK/serve.log")
[ -n "$SPORT" ] || fail "serve did not start: $(cat "$WORK/serve.log")"
grep -q "s3cret" "$WORK/serve.log" && fail "serve printed the database password"
id=$(curl -sf "http://127.0.0.1:$SPORT/api/v1/reports?family=host-oom" | jq '.reports[0].id')
got=$(curl -sf "http://127.0.0.1:$SPORT/api/v1/reports/$id")
[ "$got" = "$want" ] || fail "serve's stored report differs from the CLI's"
curl -sf "http://127.0.0.1:$SPORT/" | grep -q 'class="report-row"' || fail "the dashboard shows no row"
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
echo "ok: serve reads PostgreSQL; the report is byte-identical to the CLI's"

# 4. The database goes away: the diagnosis still prints its report, then says what failed (exit 5).
stop_pg
set +e
"$ATTR" diagnose --config examples/host-oom-kill/attribution.toml --store "$URL" -o "$WORK/after.txt" 2>"$WORK/down.err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "a database that went away exits $rc, not 5: $(cat "$WORK/down.err")"
grep -q "cannot connect to the report store" "$WORK/down.err" || fail "unclear error: $(cat "$WORK/down.err")"
grep -q "s3cret" "$WORK/down.err" && fail "the error shows the password"
grep -q "ROOT CAUSE" "$WORK/after.txt" || fail "the report was not written when the store failed"
echo "ok: with the database gone, the report is written and the error is clear (exit 5)"
