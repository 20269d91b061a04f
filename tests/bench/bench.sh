#!/usr/bin/env bash
# Benchmark (run by hand, not by CI): on one generated corpus, hot cache, the same thread count,
# times attribution's whole diagnosis against ripgrep with the rules' patterns and literals,
# grep -F with the literals (grep has no threads; grep -E cannot read RE2's syntax and grep -P
# refuses several patterns; its output goes to a file: GNU grep writing to /dev/null stops at the
# first match), and the read floor (cat). Prints wall time, throughput and peak RSS.
# The real-mix tier R (generate.sh --mix real) is full of near twins of fault lines: rg -f with the
# rules' patterns can take hours there, so each rg -f round stops after --rg-timeout seconds
# (default 300) and the table shows the bound. The scan's own time ("scan and match" of --timings),
# its candidate lines per GB and their verification time are printed after the table.
# Usage: bench.sh [--tier S|M|L|R] [--scenario NAME] [--threads N] [--attribution PATH] [--work DIR] [--rg-timeout S]
set -euo pipefail
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
TIER=M; SCENARIO=xid79; THREADS=$(nproc); ATTR="$HERE/../../build/attribution"; WORK=/tmp/attribution-bench; RG_TIMEOUT=300
while [ $# -gt 0 ]; do
  case "$1" in
    --tier) TIER="$2"; shift 2;; --scenario) SCENARIO="$2"; shift 2;; --threads) THREADS="$2"; shift 2;;
    --attribution) ATTR="$2"; shift 2;; --work) WORK="$2"; shift 2;; --rg-timeout) RG_TIMEOUT="$2"; shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
command -v rg >/dev/null || { echo "ripgrep is needed: apt-get install ripgrep" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 1; }
DIR="$WORK/$SCENARIO-$TIER"
[ -f "$DIR/truth.toml" ] || bash "$HERE/../gen/generate.sh" --scenario "$SCENARIO" --tier "$TIER" --seed 3 --out "$DIR"
"$ATTR" rules export-patterns > "$WORK/patterns.txt"
"$ATTR" rules export-patterns --literals > "$WORK/literals.txt"
BYTES=$(du -sb "$DIR/logs" | cut -f1)
cat "$DIR"/logs/*/* > /dev/null  # hot cache
LABELS=("read floor: cat" "rg -j $THREADS -f patterns" "rg -j $THREADS -F -f literals" "grep -F -f literals -r"
        "attribution diagnose --threads $THREADS")
CMDS=("cat $DIR/logs/*/*" "timeout $RG_TIMEOUT rg -j $THREADS -c -f $WORK/patterns.txt $DIR/logs"
      "rg -j $THREADS -c -F -f $WORK/literals.txt $DIR/logs" "grep -F -c -f $WORK/literals.txt -r $DIR/logs > $WORK/grep.out || true"
      "$ATTR diagnose --config $DIR/attribution.toml --threads $THREADS")
# Rounds interleave the commands, so a burst of other load on the machine falls on all of them
# alike; each command's best round (by wall time) counts, with its CPU time (user + system).
: > "$WORK/rounds.txt"
rg_stopped=0
for _ in 1 2 3; do
  for k in "${!CMDS[@]}"; do
    if [ "$k" = 1 ] && [ "$rg_stopped" = 1 ]; then continue; fi  # one round at the bound says enough
    /usr/bin/time -f "%e %M %U %S" -o "$WORK/time.txt" bash -c "${CMDS[$k]}" > /dev/null || true
    sed -i '/^Command /d' "$WORK/time.txt"  # "Command exited with non-zero status 124": the bound
    if [ "$k" = 1 ] && [ "$(awk '{print int($1)}' "$WORK/time.txt")" -ge "$RG_TIMEOUT" ]; then rg_stopped=1; fi
    read -r wall kb user sys < "$WORK/time.txt"
    echo "$k $wall $kb $(awk "BEGIN{print $user + $sys}")" >> "$WORK/rounds.txt"
  done
done
for k in "${!CMDS[@]}"; do
  read -r _ wall kb cpu < <(awk -v k="$k" '$1 == k' "$WORK/rounds.txt" | sort -k2,2g | head -1)
  printf '%s|%s|%s|%s\n' "${LABELS[$k]}" "$wall" "$kb" "$cpu"
done > "$WORK/results.txt"
rg_f=$(sed -n 2p "$WORK/results.txt" | cut -d'|' -f2); rg_F=$(sed -n 3p "$WORK/results.txt" | cut -d'|' -f2)
echo "corpus: $SCENARIO tier $TIER, $(awk "BEGIN{printf \"%.0f\", $BYTES/1048576}") MiB, $(ls "$DIR"/logs/*/* | wc -l) files; $THREADS threads; $(nproc) cores"
printf '| %-34s | %8s | %6s | %10s | %10s | %9s | %9s |\n' command "wall s" "CPU s" "MiB/s" "peak RSS MB" "/ rg -f" "/ rg -F"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------------------------------ ---------- -------- ------------ ------------ ----------- -----------
while IFS='|' read -r label wall kb cpu; do
  printf '| %-34s | %8.2f | %6.2f | %10.0f | %10.1f | %9.2f | %9.2f |\n' "$label" "$wall" "$cpu" \
    "$(awk "BEGIN{print ($wall > 0) ? $BYTES/1048576/$wall : 0}")" "$(awk "BEGIN{print $kb/1024}")" \
    "$(awk "BEGIN{print $wall/$rg_f}")" "$(awk "BEGIN{print $wall/$rg_F}")"
done < "$WORK/results.txt"
[ "$rg_stopped" = 1 ] && echo "rg -f was stopped at the $RG_TIMEOUT s bound: its wall time is at least that (ratios against it are upper bounds)"
cat_wall=$(sed -n 1p "$WORK/results.txt" | cut -d'|' -f2)
for _ in 1 2 3; do "$ATTR" diagnose --config "$DIR/attribution.toml" --threads "$THREADS" --timings 2>&1 >/dev/null | grep -E "scan"; done > "$WORK/timings.txt"
scan_s=$(grep "scan and match" "$WORK/timings.txt" | awk '{print $(NF-1)}' | sort -g | head -1)
echo "scan alone (best of 3, --timings): $scan_s s = $(awk "BEGIN{printf \"%.2f\", $scan_s / $cat_wall}")x cat"
grep -m1 "candidate lines" "$WORK/timings.txt" | sed 's/^timing: //'
"$ATTR" diagnose --config "$DIR/attribution.toml" --format json --threads "$THREADS" > "$WORK/report.json"
"$ATTR" diagnose --config "$DIR/attribution.toml" --format json --threads 1 > "$WORK/report-1.json"
cmp -s "$WORK/report.json" "$WORK/report-1.json" && echo "report identical at --threads 1 and $THREADS" || echo "REPORTS DIFFER between thread counts"
echo "truth: $(tr '\n' ' ' < "$DIR/truth.toml")"
echo "got:   $(jq -r '[.outcome.family, .outcome.blame, .root_causes[0].host, (.root_causes[0].pci // "-")] | join(" ")' "$WORK/report.json" 2>/dev/null)"
